import { isAscii, isUtf8 } from "node:buffer";
import { createRequire } from "node:module";

// chardet and iconv-lite (~200 KB of code) serve only files that are not UTF-8: required on first use, so that
// start-up does not compile them (the CLI bundle leaves them in node_modules for the same reason).
const requireHere = createRequire(import.meta.url);
let legacyCodecs: { chardet: typeof import("chardet"); iconv: typeof import("iconv-lite") } | undefined;
const codecs = () => (legacyCodecs ??= { chardet: requireHere("chardet") as typeof import("chardet"), iconv: requireHere("iconv-lite") as typeof import("iconv-lite") });

/**
 * How a text file's bytes map to characters. The first four are handled natively; any other value is an
 * iconv-lite name for a legacy single- or multi-byte encoding that chardet recognised (e.g. windows-1252),
 * accepted only when decoding and re-encoding the file gives back the exact same bytes.
 */
export type TextEncoding = "utf8" | "utf8-bom" | "utf16le" | "utf16be" | (string & {});

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);
const UTF16BE_BOM = Buffer.from([0xfe, 0xff]);

/** Bytes of the byte-order mark an encoding writes first (0 for none). */
export function bomLength(encoding: TextEncoding): number {
  if (encoding === "utf8-bom") return 3;
  if (encoding === "utf16le" || encoding === "utf16be") return 2;
  return 0;
}

/** Bytes per code unit: 2 for UTF-16 (newlines are two bytes, aligned), else 1. */
export function codeUnitBytes(encoding: TextEncoding): 1 | 2 {
  return encoding === "utf16le" || encoding === "utf16be" ? 2 : 1;
}

export function isUtf8Family(encoding: TextEncoding): boolean {
  return encoding === "utf8" || encoding === "utf8-bom";
}

/** A label for messages: "UTF-8", "UTF-8 with BOM", "UTF-16LE with BOM", "windows-1252". */
export function describeEncoding(encoding: TextEncoding): string {
  switch (encoding) {
    case "utf8":
      return "UTF-8";
    case "utf8-bom":
      return "UTF-8 with BOM";
    case "utf16le":
      return "UTF-16LE with BOM";
    case "utf16be":
      return "UTF-16BE with BOM";
    default:
      return encoding;
  }
}

export type EncodingSniff =
  | { kind: "text"; encoding: TextEncoding }
  /** NUL bytes or mostly control characters: not a text file. */
  | { kind: "binary"; reason: string }
  /** Text, but neither valid UTF-8 nor a legacy encoding that round-trips; shown with U+FFFD, never edited. */
  | { kind: "undecodable"; reason: string };

const BINARY_SAMPLE_BYTES = 8192;

/** Bytes that almost never occur in text: C0 controls other than \t \n \v \f \r, ESC and backspace. */
function controlRatio(sample: Buffer): number {
  let controls = 0;
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i];
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0b && b !== 0x0c && b !== 0x0d && b !== 0x1b && b !== 0x08) controls++;
  }
  return sample.length ? controls / sample.length : 0;
}

/** Mostly-ASCII UTF-16: nearly every other byte is NUL, all on the same side. */
function looksLikeUtf16WithoutBom(head: Buffer): boolean {
  const zeros = [0, 0];
  for (let i = 0; i < head.length; i++) if (head[i] === 0) zeros[i % 2]++;
  const half = head.length / 2;
  return half >= 8 && Math.max(zeros[0], zeros[1]) > 0.9 * half && Math.min(zeros[0], zeros[1]) < 0.05 * half;
}

/** A UTF-8 prefix cut from a longer file may end inside a multi-byte sequence; drop that partial tail. */
function trimPartialUtf8Tail(buf: Buffer): Buffer {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.subarray(0, buf.length - back) : buf;
  }
  return buf;
}

function legacyCandidate(buf: Buffer): string | undefined {
  const name = codecs().chardet.detect(buf);
  if (!name || /^(utf|ucs|ascii)/i.test(name) || !codecs().iconv.encodingExists(name)) return undefined;
  return name;
}

/**
 * Decide how to treat a file from its bytes. `buf` is the whole file when `complete`, else a prefix of it
 * (Read sniffs the first 64 KiB of files it streams); with a prefix, the verdict is a good guess, and the
 * caller must cope with later bytes that do not decode (they become U+FFFD when shown).
 */
export function sniffEncoding(buf: Buffer, complete: boolean): EncodingSniff {
  if (buf.subarray(0, 3).equals(UTF8_BOM)) return { kind: "text", encoding: "utf8-bom" };
  if (buf.subarray(0, 2).equals(UTF16LE_BOM)) return { kind: "text", encoding: "utf16le" };
  if (buf.subarray(0, 2).equals(UTF16BE_BOM)) return { kind: "text", encoding: "utf16be" };

  const head = buf.subarray(0, BINARY_SAMPLE_BYTES);
  const nul = (complete ? buf : head).indexOf(0);
  if (nul !== -1) {
    const hint = looksLikeUtf16WithoutBom(head) ? "; it looks like UTF-16 text without a byte-order mark, which is not supported" : "";
    return { kind: "binary", reason: `it contains NUL bytes (first at byte ${nul})${hint}` };
  }
  if (controlRatio(head) > 0.1) return { kind: "binary", reason: "most of its first bytes are control characters" };

  const candidate = complete ? buf : trimPartialUtf8Tail(buf);
  if (isUtf8(candidate)) return { kind: "text", encoding: "utf8" };

  const legacy = legacyCandidate(buf);
  if (legacy && (!complete || codecs().iconv.encode(codecs().iconv.decode(buf, legacy), legacy).equals(buf))) {
    return { kind: "text", encoding: legacy };
  }
  return {
    kind: "undecodable",
    reason: legacy
      ? `it is not valid UTF-8 and does not round-trip through ${legacy} either`
      : "it is not valid UTF-8 and its encoding could not be recognised",
  };
}

/** Decode a whole file (BOM removed). ASCII goes through latin1, which is the same text, only faster. */
export function decodeText(buf: Buffer, encoding: TextEncoding): string {
  const body = buf.subarray(bomLength(encoding));
  switch (encoding) {
    case "utf8":
    case "utf8-bom":
      return isAscii(body) ? body.toString("latin1") : body.toString("utf8");
    case "utf16le":
      return body.toString("utf16le");
    case "utf16be":
      return Buffer.from(body).swap16().toString("utf16le");
    default:
      return codecs().iconv.decode(body, encoding);
  }
}

/** Raised when the new text has characters the file's encoding cannot hold; writing it would lose them. */
export class UnrepresentableTextError extends Error {
  constructor(
    readonly encoding: TextEncoding,
    readonly character: string,
  ) {
    const code = character.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0");
    super(
      `The file is encoded as ${describeEncoding(encoding)}, which cannot represent ${JSON.stringify(character)} (U+${code}). ` +
        `Use only characters that ${encoding} supports, or convert the file to UTF-8 first (e.g. with iconv).`,
    );
    this.name = "UnrepresentableTextError";
  }
}

/** Encode text back into the file's encoding, BOM included. Throws UnrepresentableTextError for lossy legacy writes. */
export function encodeText(text: string, encoding: TextEncoding): Buffer {
  switch (encoding) {
    case "utf8":
      return Buffer.from(text, "utf8");
    case "utf8-bom":
      return Buffer.concat([UTF8_BOM, Buffer.from(text, "utf8")]);
    case "utf16le":
      return Buffer.concat([UTF16LE_BOM, Buffer.from(text, "utf16le")]);
    case "utf16be":
      return Buffer.concat([UTF16BE_BOM, Buffer.from(text, "utf16le").swap16()]);
    default: {
      const bytes = codecs().iconv.encode(text, encoding);
      const back = codecs().iconv.decode(bytes, encoding);
      if (back !== text) {
        let i = 0;
        while (i < text.length && text[i] === back[i]) i++;
        throw new UnrepresentableTextError(encoding, String.fromCodePoint(text.codePointAt(i) ?? 0xfffd));
      }
      return bytes;
    }
  }
}

/** encodeText for the writers, whose refusals are values: the bytes, or why the text cannot be written in this encoding. */
export function tryEncodeText(text: string, encoding: TextEncoding): { ok: true; bytes: Buffer } | { ok: false; message: string } {
  try {
    return { ok: true, bytes: encodeText(text, encoding) };
  } catch (err) {
    if (err instanceof UnrepresentableTextError) return { ok: false, message: err.message };
    throw err;
  }
}

/**
 * A decoder for lines' bytes (Read's streaming window). The file's own BOM is skipped by position, so a
 * U+FEFF at the start of a line is text and stays (TextDecoder would drop it from every call's start).
 */
export function lineDecoder(encoding: TextEncoding): (bytes: Buffer) => string {
  const label = isUtf8Family(encoding) ? "utf-8" : encoding === "utf16le" ? "utf-16le" : encoding === "utf16be" ? "utf-16be" : undefined;
  if (label === undefined) return (bytes) => codecs().iconv.decode(bytes, encoding);
  const decoder = new TextDecoder(label, { ignoreBOM: true });
  return (bytes) => decoder.decode(bytes);
}

/**
 * Whether decoding several lines at once and splitting at "\n" gives the same lines as decoding each
 * alone: true for UTF-8 and UTF-16, where a newline is never part of another character and an invalid
 * sequence before it becomes U+FFFD without taking it along.
 */
export function newlineSplitsDecodedText(encoding: TextEncoding): boolean {
  return isUtf8Family(encoding) || encoding === "utf16le" || encoding === "utf16be";
}
