/** Image files as the model receives them: base64 blocks of the formats the Messages API accepts. */

/** Raw bytes; base64 makes this about 5 MB, the API's per-image limit. */
export const MAX_IMAGE_BYTES = Math.floor(3.75 * 1024 * 1024);

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ImageInfo {
  mediaType: ImageMediaType;
  width?: number;
  height?: number;
}

function jpegSize(buf: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < buf.length) {
    if (buf[i] !== 0xff) return undefined;
    const marker = buf[i + 1];
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = buf.readUInt16BE(i + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    i += 2 + length;
  }
  return undefined;
}

function webpSize(buf: Buffer): { width: number; height: number } | undefined {
  const kind = buf.toString("ascii", 12, 16);
  if (kind === "VP8 " && buf.length >= 30) return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
  if (kind === "VP8L" && buf.length >= 25) {
    const bits = buf.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (kind === "VP8X" && buf.length >= 30) return { width: buf.readUIntLE(24, 3) + 1, height: buf.readUIntLE(27, 3) + 1 };
  return undefined;
}

/** The image format from the file's magic bytes (never its extension), with its pixel size when readable. */
export function sniffImage(buf: Buffer): ImageInfo | undefined {
  if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47 && buf.readUInt32BE(4) === 0x0d0a1a0a) {
    return { mediaType: "image/png", width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return { mediaType: "image/jpeg", ...jpegSize(buf) };
  if (buf.length >= 10 && /^GIF8[79]a$/.test(buf.toString("ascii", 0, 6))) {
    return { mediaType: "image/gif", width: buf.readUInt16LE(6), height: buf.readUInt16LE(8) };
  }
  if (buf.length >= 16 && buf.toString("ascii", 0, 4) === "RIFF" && buf.toString("ascii", 8, 12) === "WEBP") {
    return { mediaType: "image/webp", ...webpSize(buf) };
  }
  return undefined;
}
