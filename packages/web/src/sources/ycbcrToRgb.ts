// libjpeg's YCbCr -> RGB, bit for bit: what libjpeg-turbo (the JPEG decoder of Chromium, Firefox
// and WebKit, and of sharp/libvips) makes of a JPEG's decoded planes by default.

/** libjpeg's fixed point (jdcolor.c): 16 fraction bits, FIX(x) rounded. */
const SCALEBITS = 16;
const ONE_HALF = 1 << (SCALEBITS - 1);
const fix = (x: number): number => Math.floor(x * (1 << SCALEBITS) + 0.5);

/** jdcolor.c's build_ycc_rgb_table: Cr → R, Cb → B (rounded), Cr → G, Cb → G (unshifted). */
const CR_R = new Int32Array(256);
const CB_B = new Int32Array(256);
const CR_G = new Int32Array(256);
const CB_G = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  const x = i - 128;
  CR_R[i] = (fix(1.402) * x + ONE_HALF) >> SCALEBITS;
  CB_B[i] = (fix(1.772) * x + ONE_HALF) >> SCALEBITS;
  CR_G[i] = -fix(0.71414) * x;
  CB_G[i] = -fix(0.34414) * x + ONE_HALF;
}

/** libjpeg's range_limit: a sum clamped to [0, 255], looked up at sum + LIMIT_AT (sums stay within ±256). */
const LIMIT_AT = 256;
const LIMIT = new Uint8Array(768);
for (let i = 0; i < LIMIT.length; i++) LIMIT[i] = Math.max(0, Math.min(255, i - LIMIT_AT));

/** One plane of a frame: where its rows start in the copied bytes. */
export interface PlaneAt {
  offset: number;
  stride: number;
}

/**
 * Rows of RGB from a JPEG's YCbCr planes (a WebCodecs `I420` or `I444` frame copied with
 * `copyTo`): full-range BT.601, the chroma of 4:2:0 upsampled as libjpeg's default "fancy"
 * upsampling does (jdsample.c `h2v2_fancy_upsample`: 3/4 nearer row + 1/4 farther row, then
 * the same across columns, edge rows and columns repeated), converted with libjpeg's tables.
 * The result equals the RGB the platform's canvas path reads back for the same file
 * (`createImageBitmap` + `getImageData`), and libjpeg-turbo's own decode. Two rows of
 * upsampled chroma are the only scratch, kept between frames.
 */
export class YcbcrToRgb {
  private cb = new Uint8Array(0);
  private cr = new Uint8Array(0);

  /**
   * Row `y` of a `width` × `height` frame whose planes (Y, Cb, Cr) are in `bytes` at
   * `planes`, `subsampled` (4:2:0) or not (4:4:4), as R, G, B bytes into `out` from `at`.
   */
  row(
    bytes: Uint8Array,
    planes: readonly PlaneAt[],
    width: number,
    height: number,
    subsampled: boolean,
    y: number,
    out: Uint8Array,
    at: number,
  ): void {
    const [yPlane, cbPlane, crPlane] = planes as [PlaneAt, PlaneAt, PlaneAt];
    let cb: Uint8Array;
    let cr: Uint8Array;
    let c0 = 0;
    if (subsampled) {
      if (this.cb.length < width + 1) {
        this.cb = new Uint8Array(width + 1);
        this.cr = new Uint8Array(width + 1);
      }
      cb = this.cb;
      cr = this.cr;
      const rows = (height + 1) >> 1;
      const near = y >> 1;
      // the other chroma row of the blend: above for an even row, below for an odd one
      const far = y & 1 ? Math.min(near + 1, rows - 1) : Math.max(near - 1, 0);
      const cols = (width + 1) >> 1;
      upsampleRow(bytes, cbPlane, near, far, cols, cb);
      upsampleRow(bytes, crPlane, near, far, cols, cr);
    } else {
      cb = bytes;
      cr = bytes;
      c0 = y * cbPlane.stride + cbPlane.offset;
      // Cb and Cr share the index below: Cr's row is at the same column offset of its plane
    }
    const crShift = subsampled ? 0 : crPlane.offset + y * crPlane.stride - c0;
    const y0 = yPlane.offset + y * yPlane.stride;
    for (let x = 0, o = at; x < width; x++, o += 3) {
      const lum = (bytes[y0 + x] as number) + LIMIT_AT;
      const b = cb[c0 + x] as number;
      const r = cr[c0 + x + crShift] as number;
      out[o] = LIMIT[lum + (CR_R[r] as number)] as number;
      out[o + 1] = LIMIT[
        lum + (((CB_G[b] as number) + (CR_G[r] as number)) >> SCALEBITS)
      ] as number;
      out[o + 2] = LIMIT[lum + (CB_B[b] as number)] as number;
    }
  }
}

/**
 * One output row's chroma from a 4:2:0 plane (jdsample.c `h2v2_fancy_upsample`): column sums
 * 3 × row `near` + row `far`, then each output pair (3 × this + the neighbour) / 16 with
 * libjpeg's biases (8 towards the left neighbour, 7 towards the right).
 */
function upsampleRow(
  bytes: Uint8Array,
  plane: PlaneAt,
  near: number,
  far: number,
  cols: number,
  out: Uint8Array,
): void {
  const a = plane.offset + near * plane.stride;
  const b = plane.offset + far * plane.stride;
  let cur = 3 * (bytes[a] as number) + (bytes[b] as number);
  if (cols === 1) {
    out[0] = (cur * 4 + 8) >> 4;
    out[1] = (cur * 4 + 7) >> 4;
    return;
  }
  let next = 3 * (bytes[a + 1] as number) + (bytes[b + 1] as number);
  out[0] = (cur * 4 + 8) >> 4;
  out[1] = (cur * 3 + next + 7) >> 4;
  let last = cur;
  cur = next;
  for (let c = 1; c < cols - 1; c++) {
    next = 3 * (bytes[a + c + 1] as number) + (bytes[b + c + 1] as number);
    out[2 * c] = (cur * 3 + last + 8) >> 4;
    out[2 * c + 1] = (cur * 3 + next + 7) >> 4;
    last = cur;
    cur = next;
  }
  out[2 * cols - 2] = (cur * 3 + last + 8) >> 4;
  out[2 * cols - 1] = (cur * 4 + 7) >> 4;
}
