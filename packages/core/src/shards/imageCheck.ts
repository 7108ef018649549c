// The image files the shard packers (`medfusion pack`, web's `packFiles`) store
// as they are: which kind a file is, and a check of its structure without
// decoding it, so a truncated or damaged file is refused by name before packing.
import { crc32 } from '../util/crc32.js';

/** The image kinds the packers store, by the member extension they get. */
export type ImageKind = 'png' | 'jpg' | 'dcm';

/** The image kind of `bytes` by magic number, or undefined (not an image we pack). */
export function sniffImage(bytes: Uint8Array): ImageKind | undefined {
  if (
    bytes.length >= 8 &&
    bytes[0] === 0x89 &&
    bytes[1] === 0x50 &&
    bytes[2] === 0x4e &&
    bytes[3] === 0x47
  ) {
    return 'png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return 'jpg';
  if (
    bytes.length >= 132 &&
    bytes[128] === 0x44 &&
    bytes[129] === 0x49 &&
    bytes[130] === 0x43 &&
    bytes[131] === 0x4d
  ) {
    return 'dcm';
  }
  return undefined;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * Check a PNG's structure without decoding it: the signature, then a chain of
 * chunks, each inside the file and matching its CRC, starting with IHDR and
 * ending with IEND (a truncated file loses its IEND; a changed byte fails a CRC).
 * `crc` computes a chunk's CRC-32 (Node passes zlib's, faster than the
 * JavaScript default). Returns the size; throws an Error saying what is wrong.
 */
export function checkPng(
  bytes: Uint8Array,
  crc: (bytes: Uint8Array) => number = crc32,
): { width: number; height: number } {
  for (let i = 0; i < 8; i++)
    if (bytes[i] !== PNG_SIGNATURE[i]) throw new Error('not a PNG signature');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  let first = true;
  let width = 0;
  let height = 0;
  for (;;) {
    if (at + 12 > bytes.length)
      throw new Error(
        `truncated PNG: chunk header at byte ${at} runs past the end (${bytes.length} bytes), no IEND`,
      );
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (at + 12 + length > bytes.length) {
      throw new Error(
        `truncated PNG: chunk ${type} at byte ${at} needs ${length} bytes, the file ends first`,
      );
    }
    const stored = view.getUint32(at + 8 + length);
    if (crc(bytes.subarray(at + 4, at + 8 + length)) !== stored) {
      throw new Error(`corrupt PNG: chunk ${type} at byte ${at} fails its CRC`);
    }
    if (first) {
      if (type !== 'IHDR' || length < 13) throw new Error('PNG does not start with an IHDR chunk');
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      if (width === 0 || height === 0) throw new Error(`PNG size ${width}x${height}`);
      first = false;
    }
    at += 12 + length;
    if (type === 'IEND') return { width, height };
  }
}

/**
 * Check a JPEG's structure without decoding it: SOI, segments inside the file up
 * to the start of scan, a frame header (SOF) giving the size, and an EOI marker
 * at the end (trailing zero padding allowed). Throws an Error saying what is wrong.
 */
export function checkJpeg(bytes: Uint8Array): { width: number; height: number } {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('not a JPEG (no SOI marker)');
  let at = 2;
  let width = 0;
  let height = 0;
  for (;;) {
    while (at < bytes.length && bytes[at] === 0xff && bytes[at + 1] === 0xff) at++;
    if (at + 4 > bytes.length)
      throw new Error(`truncated JPEG: the file ends at byte ${bytes.length} before the scan data`);
    if (bytes[at] !== 0xff) throw new Error(`corrupt JPEG: no marker at byte ${at}`);
    const marker = bytes[at + 1] as number;
    const length = ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number);
    if (at + 2 + length > bytes.length)
      throw new Error(`truncated JPEG: segment at byte ${at} runs past the end`);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      height = ((bytes[at + 5] as number) << 8) | (bytes[at + 6] as number);
      width = ((bytes[at + 7] as number) << 8) | (bytes[at + 8] as number);
    }
    at += 2 + length;
    if (marker === 0xda) break;
  }
  if (width === 0 || height === 0)
    throw new Error('JPEG has no frame header (SOF) before its scan');
  let end = bytes.length;
  while (end > at && bytes[end - 1] === 0) end--;
  if (end < at + 2 || bytes[end - 2] !== 0xff || bytes[end - 1] !== 0xd9) {
    throw new Error('truncated JPEG: no EOI marker at the end');
  }
  return { width, height };
}
