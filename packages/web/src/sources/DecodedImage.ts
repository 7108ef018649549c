/** A decoded image: normalised pixels in [0, 1], row-major, channels interleaved. */
export interface DecodedImage {
  /** width × height × channels values in [0, 1]. */
  data: Float32Array;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** Channels per pixel (1 or 3). */
  channels: 1 | 3;
}
