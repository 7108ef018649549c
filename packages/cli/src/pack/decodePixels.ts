import { encodeNpy } from './npy.js';

/** What `--decode` stores instead of the image file. */
export interface DecodeOptions {
  /** Output width (`--size WxH`); the image's own when absent. */
  width?: number;
  /** Output height; the image's own when absent. */
  height?: number;
  /** 1: luminance 0.299 R + 0.587 G + 0.114 B (the library's ImageDecoder weights); 3: R, G, B. */
  channels: 1 | 3;
}

/** sharp's entry function. */
type Sharp = typeof import('sharp').default;
let sharpModule: Promise<Sharp> | undefined;

/** sharp (libvips, a native library of some 20 MB), loaded on first use: a pack without --decode never maps it. */
export function loadSharp(): Promise<Sharp> {
  sharpModule ??= import('sharp').then((m) => m.default);
  return sharpModule;
}

/**
 * Decode a PNG or JPEG (sharp/libvips, alpha dropped, 8 bits), resize it to
 * `width` x `height` (libvips' default Lanczos-3 kernel) and return a uint8
 * `.npy` of shape (height, width, channels).
 */
export async function decodePixels(bytes: Uint8Array, options: DecodeOptions): Promise<Uint8Array> {
  const sharp = await loadSharp();
  let image = sharp(bytes, { failOn: 'error' }).removeAlpha().toColourspace('srgb');
  if (options.width !== undefined && options.height !== undefined) {
    image = image.resize(options.width, options.height, { fit: 'fill' });
  }
  const { data, info } = await image.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  if (info.channels !== 3) throw new Error(`decoded to ${info.channels} channels, expected 3`);
  if (options.channels === 3) return encodeNpy(data, [height, width, 3]);
  const grey = new Uint8Array(width * height);
  for (let p = 0, q = 0; p < grey.length; p++, q += 3) {
    grey[p] = Math.round(
      0.299 * (data[q] as number) +
        0.587 * (data[q + 1] as number) +
        0.114 * (data[q + 2] as number),
    );
  }
  return encodeNpy(grey, [height, width, 1]);
}
