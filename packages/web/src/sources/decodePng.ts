import { decode as decodePngFile } from 'fast-png';
import type { DecodedImage } from './decodeImage.js';
import { pixelsToFloat32 } from './pixelsToFloat32.js';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** IHDR's fields after the signature (8), the chunk length (4) and type (4): width, height at 16. */
const BIT_DEPTH_AT = 24;
const COLOUR_TYPE_AT = 25;
const INTERLACE_AT = 28;
const GREY = 0;
const RGB = 2;

/** The IEND chunk every PNG ends with: length 0, type "IEND", its CRC. */
const IEND = [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];

/** Bytes {@link pngTruncated} needs from the end of the file. */
export const PNG_TAIL_BYTES = IEND.length;

/** Whether `head` starts with the PNG signature. */
export function isPng(head: Uint8Array): boolean {
  if (head.length < SIGNATURE.length) return false;
  for (let k = 0; k < SIGNATURE.length; k++) if (head[k] !== SIGNATURE[k]) return false;
  return true;
}

/**
 * Whether a PNG whose last bytes are `tail` (up to {@link PNG_TAIL_BYTES}) was cut off: it does
 * not end with the IEND chunk. Some platform decoders (WebKit's, Firefox's createImageBitmap)
 * resolve such a file to a blank image instead of failing.
 */
export function pngTruncated(tail: Uint8Array): boolean {
  if (tail.length < IEND.length) return true;
  const at = tail.length - IEND.length;
  for (let k = 0; k < IEND.length; k++) if (tail[at + k] !== IEND[k]) return true;
  return false;
}

/**
 * Whether `bytes` is a PNG the pure-JS path decodes to exactly the platform's values:
 * 8 bits per sample, grey or RGB (no palette, no alpha), not interlaced.
 */
function plainPng(bytes: Uint8Array): boolean {
  if (bytes.length <= INTERLACE_AT || !isPng(bytes)) return false;
  const colour = bytes[COLOUR_TYPE_AT];
  return bytes[BIT_DEPTH_AT] === 8 && (colour === GREY || colour === RGB) && !bytes[INTERLACE_AT];
}

/**
 * Decode a plain PNG (see {@link plainPng}) in JavaScript, on the calling thread, to
 * normalised pixels with `channels` channels (1 = luminance 0.299 R + 0.587 G + 0.114 B,
 * 3 = R, G, B). Undefined for anything else (the caller uses the platform decoder).
 *
 * Why: the platform path (`createImageBitmap` + `OffscreenCanvas`) hands every image
 * to the browser process as a Blob and back, and decodes on another thread; for the
 * demo's 64 × 64 PNGs that is ~0.9 ms of CPU per image spread over four threads, against
 * ~0.3 ms here (`pnpm bench pipeline-decode`). Throws on a corrupt file.
 */
export function decodePlainPng(bytes: Uint8Array, channels: 1 | 3): DecodedImage | undefined {
  if (!plainPng(bytes)) return undefined;
  const png = decodePngFile(bytes);
  // a tRNS chunk makes a colour transparent: the canvas would premultiply it away
  if (png.transparency !== undefined || png.depth !== 8) return undefined;
  const { width, height } = png;
  if (png.channels !== 1 && png.channels !== 3) return undefined;
  const data = pixelsToFloat32(png.data, png.channels, channels, width * height);
  return { data, width, height, channels };
}
