import fs from "node:fs";
import path from "node:path";

/** Paths that never end (or block, or read the session's own terminal) whatever they point to. */
const ENDLESS_OR_INTERACTIVE = new Set([
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/full",
  "/dev/null",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/tty",
  "/dev/console",
  "/dev/ptmx",
]);

/** Why reading or writing this path is refused before it is even opened, or undefined. */
export function blockedDevicePath(absPath: string): string | undefined {
  const p = path.normalize(absPath);
  if (ENDLESS_OR_INTERACTIVE.has(p)) return `${p} is a device, not a file`;
  if (/^\/dev\/fd\/\d+$/.test(p) || /^\/proc\/(?:self|thread-self|\d+)\/fd\/\d+$/.test(p)) {
    return `${p} is an open file descriptor of a process, not a file`;
  }
  return undefined;
}

export { statIfExists } from "../../util/statIfExists.js";

/** What a non-regular file is, for messages; undefined for regular files. */
export function describeSpecialFile(stat: fs.Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return "a directory";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

/** Extensions whose files are binary whatever their first bytes look like. */
const BINARY_EXTENSIONS = new Set(
  (
    "exe dll so dylib o a lib obj ko elf bin dat class jar war ear pyc pyo pyd whl wasm node " +
    "zip gz tgz bz2 xz zst lz4 lzma 7z rar tar cab iso dmg img deb rpm apk ipa msi pkg " +
    "bmp ico tif tiff psd heic heif avif raw cr2 nef dng " +
    "mp3 wav flac ogg oga opus m4a aac wma aiff mid midi " +
    "mp4 m4v mov avi mkv webm wmv flv mpg mpeg 3gp " +
    "ttf otf woff woff2 eot " +
    "doc docx xls xlsx ppt pptx odt ods odp pages numbers key " +
    "sqlite sqlite3 db mdb accdb realm parquet avro orc feather arrow npy npz pkl pickle h5 hdf5 pt pth onnx safetensors ckpt tflite " +
    "keystore jks p12 pfx der dex"
  ).split(" "),
);

function extensionOf(filePath: string): string {
  return path.extname(filePath).slice(1).toLowerCase();
}

export function hasBinaryExtension(filePath: string): boolean {
  return BINARY_EXTENSIONS.has(extensionOf(filePath));
}

const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"]);

export function hasImageExtension(filePath: string): boolean {
  return IMAGE_EXTENSIONS.has(extensionOf(filePath));
}

export function isNotebookPath(filePath: string): boolean {
  return extensionOf(filePath) === "ipynb";
}

export function isPdfPath(filePath: string): boolean {
  return extensionOf(filePath) === "pdf";
}

/** Human sizes for messages: 512 B, 1.5 KB, 3.2 MB, 1.10 GB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}
