import { sampleBilinear } from '@medfusion/core/internal';
import type { DecodeOptions } from './decodePixels.js';
import { encodeNpy } from './npy.js';

/** What this file uses of @medfusion/web/dicom's DicomDecoder. */
interface Decoder {
  decode(bytes: Uint8Array): Promise<{
    image: { data: Float32Array; shape: readonly number[] };
    frames: number;
  }>;
}

/**
 * The module, named in a variable: loaded on first use only (its codecs load per
 * transfer syntax), and kept out of this package's type check (its source is
 * browser code, typed against the DOM).
 */
const WEB_DICOM = '@medfusion/web/dicom';

/** @medfusion/web/dicom's decoder, once loaded. */
let decoder: Promise<Decoder> | undefined;

/**
 * Bilinear resize of an `[h, w, c]` float image to `[height, width, c]`: pixel
 * centres aligned (half-pixel offsets), edges clamped (PIL's and TF's bilinear
 * when enlarging; no antialiasing when shrinking).
 */
function resizeBilinear(
  src: Float32Array,
  h: number,
  w: number,
  c: number,
  height: number,
  width: number,
): Float32Array {
  const out = new Float32Array(height * width * c);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(h - 1, Math.max(0, ((y + 0.5) * h) / height - 0.5));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(w - 1, Math.max(0, ((x + 0.5) * w) / width - 0.5));
      sampleBilinear(src, h, w, c, sx, sy, 0, out, (y * width + x) * c);
    }
  }
  return out;
}

/**
 * Decode a DICOM Part 10 file (@medfusion/web/dicom's DicomDecoder: every
 * transfer syntax it reads, Rescale Slope/Intercept applied, no window) to a
 * little-endian float32 `.npy` of shape (height, width, channels): one frame
 * (a multi-frame object is an Error), grey repeated to 3 channels or RGB to
 * luminance (0.299 R + 0.587 G + 0.114 B) as `channels` asks, resized
 * bilinearly to `width` x `height` when given.
 */
export async function decodeDicom(bytes: Uint8Array, options: DecodeOptions): Promise<Uint8Array> {
  decoder ??= import(WEB_DICOM).then(
    (m: { DicomDecoder: new () => Decoder }) => new m.DicomDecoder(),
  );
  const { image, frames } = await (await decoder).decode(bytes);
  if (frames !== 1) throw new Error(`has ${frames} frames; --decode stores one frame per sample`);
  const [h, w, c] = image.shape as [number, number, number];
  let data = image.data;
  if (c !== options.channels) {
    const n = h * w;
    const out = new Float32Array(n * options.channels);
    for (let p = 0; p < n; p++) {
      if (options.channels === 3) out.fill(data[p] as number, p * 3, p * 3 + 3);
      else
        out[p] =
          0.299 * (data[p * 3] as number) +
          0.587 * (data[p * 3 + 1] as number) +
          0.114 * (data[p * 3 + 2] as number);
    }
    data = out;
  }
  const height = options.height ?? h;
  const width = options.width ?? w;
  if (height !== h || width !== w)
    data = resizeBilinear(data, h, w, options.channels, height, width);
  return encodeNpy(data, [height, width, options.channels]);
}
