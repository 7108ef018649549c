import { arrayOf, positiveInt, showValue, withDefault } from '../util/validate.js';
import { sampleBilinear } from './bilinear.js';
import {
  type FloatArray,
  hwc,
  imageShape,
  optionsOf,
  probability,
  range,
  type Transform,
} from './Transform.js';

/** Options of {@link randomResizedCrop}. */
export interface RandomResizedCropOptions {
  /** Output size `[height, width]` (or one number for a square). Required. */
  size: number | readonly [number, number];
  /**
   * Range of the crop's area as a share of the image's.
   * @default [0.08, 1]
   */
  scale?: readonly [number, number];
  /**
   * Range of the crop's width / height ratio (drawn uniformly in log space).
   * @default [3 / 4, 4 / 3]
   */
  ratio?: readonly [number, number];
  /**
   * Probability of cropping; otherwise the whole image is resized to `size`.
   * @default 1
   */
  p?: number;
}

/** A crop box in pixels: top row, left column, height and width. */
export interface CropBox {
  /** Top row. */
  y: number;
  /** Left column. */
  x: number;
  /** Height in pixels. */
  h: number;
  /** Width in pixels. */
  w: number;
}

/**
 * Crop a random box (area share in `scale`, aspect ratio in `ratio`; both
 * sides clamped to the image, position uniform) and resize it to the fixed
 * `size` with bilinear sampling, corner-aligned like TensorFlow's
 * `cropAndResize`: output row `i` reads input row `y + i·(h − 1)/(outH − 1)`.
 * The draw is the box; with probability `1 − p` it is the whole image.
 * @example randomResizedCrop({ size: 224, scale: [0.5, 1] })
 */
export function randomResizedCrop(options: RandomResizedCropOptions): Transform<CropBox> {
  const o = optionsOf('randomResizedCrop', options);
  const size = o.size;
  const [oh, ow] = Array.isArray(size)
    ? (arrayOf('randomResizedCrop.size', size, positiveInt) as [number, number])
    : [positiveInt('randomResizedCrop.size', size), positiveInt('randomResizedCrop.size', size)];
  if (Array.isArray(size) && size.length !== 2) {
    throw new TypeError(
      `randomResizedCrop.size must be a number or [height, width], got ${showValue(size)}`,
    );
  }
  const scale = withDefault('randomResizedCrop.scale', o.scale, [0.08, 1] as const, (n, v) =>
    range(n, v, Number.MIN_VALUE, 1),
  );
  const ratio = withDefault('randomResizedCrop.ratio', o.ratio, [3 / 4, 4 / 3] as const, (n, v) =>
    range(n, v, Number.MIN_VALUE),
  );
  const p = withDefault('randomResizedCrop.p', o.p, 1, probability);
  const logLo = Math.log(ratio[0]);
  const logHi = Math.log(ratio[1]);
  return {
    kind: 'randomResizedCrop',
    options: { size: [oh, ow], scale, ratio, p },
    draw: (rng, shape) => {
      const [h, w] = hwc('randomResizedCrop', shape);
      const go = rng.next() < p;
      const area = h * w * rng.uniform(scale[0], scale[1]);
      const r = Math.exp(rng.uniform(logLo, logHi));
      const cw = Math.min(w, Math.max(1, Math.round(Math.sqrt(area * r))));
      const ch = Math.min(h, Math.max(1, Math.round(Math.sqrt(area / r))));
      const x = rng.int(w - cw + 1);
      const y = rng.int(h - ch + 1);
      return go ? { y, x, h: ch, w: cw } : { y: 0, x: 0, h, w };
    },
    shapeAfter: (shape) => imageShape(shape, oh, ow),
    apply(input: FloatArray, box: CropBox): FloatArray {
      const [h, w, c] = hwc('randomResizedCrop', input.shape);
      const out = new Float32Array(oh * ow * c);
      const stepY = oh > 1 ? (box.h - 1) / (oh - 1) : 0;
      const stepX = ow > 1 ? (box.w - 1) / (ow - 1) : 0;
      const y0 = oh > 1 ? box.y : box.y + (box.h - 1) / 2;
      const x0 = ow > 1 ? box.x : box.x + (box.w - 1) / 2;
      for (let i = 0; i < oh; i++) {
        const sy = y0 + i * stepY;
        for (let j = 0; j < ow; j++) {
          sampleBilinear(input.data, h, w, c, x0 + j * stepX, sy, 0, out, (i * ow + j) * c);
        }
      }
      return { data: out, shape: imageShape(input.shape, oh, ow) };
    },
  };
}
