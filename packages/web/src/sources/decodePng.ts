import { decode as decodePngFile } from 'fast-png';
import { convertPixels } from './convertPixels.js';
import type { DecodedImage, ImageDtype, ImagePixels } from './DecodedImage.js';
import { isPng } from './pngTruncation.js';

/** IHDR's fields after the signature (8), the chunk length (4) and type (4): width, height at 16. */
const BIT_DEPTH_AT = 24;
const COLOUR_TYPE_AT = 25;
const INTERLACE_AT = 28;
const GREY = 0;
const RGB = 2;

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
 * pixels of `dtype` with `channels` channels (1 = luminance 0.299 R + 0.587 G + 0.114 B,
 * 3 = R, G, B); uint8 pixels of the file's own channels are fast-png's array itself.
 * Undefined for anything else (the caller uses the platform decoder).
 *
 * Why: the platform path (`createImageBitmap` + `OffscreenCanvas`) hands every image
 * to the browser process as a Blob and back, and decodes on another thread; for the
 * demo's 64 × 64 PNGs that is ~0.9 ms of CPU per image spread over four threads, against
 * ~0.3 ms here (`pnpm bench pipeline-decode`). Throws on a corrupt file.
 */
export function decodePlainPng<D extends ImageDtype>(
  bytes: Uint8Array,
  channels: 1 | 3,
  dtype: D,
): DecodedImage<D> | undefined {
  if (!plainPng(bytes)) return undefined;
  const png = decodePngFile(bytes);
  // a tRNS chunk makes a colour transparent: the canvas would premultiply it away
  if (png.transparency !== undefined || png.depth !== 8) return undefined;
  const { width, height } = png;
  if (png.channels !== 1 && png.channels !== 3) return undefined;
  const n = width * height;
  const data =
    dtype === 'uint8' && png.channels === channels && png.data instanceof Uint8Array
      ? (png.data as ImagePixels<D>)
      : convertPixels(dtype, png.data, png.channels, channels, n);
  return { data, width, height, channels };
}
