/**
 * Element type of decoded pixels: `'float32'` (values in [0, 1]) or `'uint8'` (the file's 8-bit
 * values, 0–255).
 */
export type ImageDtype = 'float32' | 'uint8';

/** The pixel array of an {@link ImageDtype}: `Float32Array` for `'float32'`, `Uint8Array` for `'uint8'`. */
export type ImagePixels<D extends ImageDtype> = D extends 'uint8' ? Uint8Array : Float32Array;

/** A decoded image: pixels row-major, channels interleaved, as its decoder's `dtype` says. */
export interface DecodedImage<D extends ImageDtype = 'float32'> {
  /** width × height × channels values: in [0, 1] (`'float32'`) or 0–255 (`'uint8'`). */
  data: ImagePixels<D>;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** Channels per pixel (1 or 3). */
  channels: 1 | 3;
}
