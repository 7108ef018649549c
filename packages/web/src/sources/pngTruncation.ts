const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** 'IEND' as a big-endian u32. */
const IEND = 0x49454e44;

/** True when `bytes` starts with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  if (bytes.length < SIGNATURE.length) return false;
  for (let k = 0; k < SIGNATURE.length; k++) if (bytes[k] !== SIGNATURE[k]) return false;
  return true;
}

/**
 * Why the PNG `bytes` (the whole file) is cut short, or undefined when it is whole: every
 * chunk's length, type and CRC fit in the file up to an IEND chunk (bytes after IEND are
 * ignored, as decoders do). Firefox's and WebKit's `createImageBitmap` resolve on a
 * truncated file with a blank or half-drawn image, so {@link ImageDecoder} asks this first.
 */
export function pngTruncation(bytes: Uint8Array): string | undefined {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = SIGNATURE.length;
  while (at + 8 <= bytes.length) {
    const length = dv.getUint32(at);
    const type = dv.getUint32(at + 4);
    const end = at + 12 + length;
    if (end > bytes.length) {
      return `truncated: its chunk at byte ${at} claims ${length} bytes, the file ends ${end - bytes.length} bytes short`;
    }
    if (type === IEND) return undefined;
    at = end;
  }
  return `truncated: the file ends at byte ${bytes.length} without an IEND chunk`;
}
