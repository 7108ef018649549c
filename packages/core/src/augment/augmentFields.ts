import { isTypedArray, type TypedArray } from '../util/typedArrays.js';
import {
  arrayOf,
  object,
  optionsBag,
  positiveInt,
  showValue,
  withDefault,
} from '../util/validate.js';
import type { AugmentContext, AugmentFn } from './Augment.js';
import type { FloatArray, Transform } from './Transform.js';

const SHAPE_SUFFIX = 'Shape';

type Fields = Record<string, unknown>;

/** Options of {@link augmentFields}. */
export interface AugmentFieldsOptions {
  /**
   * Shapes of flat fields that carry no `<name>Shape` sibling, e.g.
   * `{ image: [64, 64, 1] }` for `CsvImageDataset` samples.
   * @default {} (a flat field without a sibling is a vector `[length]`)
   */
  shapes?: Readonly<Record<string, readonly number[]>>;
}

/**
 * True when `data` spans a whole `ArrayBuffer` of its own: safe to write in
 * place. A `SharedArrayBuffer` is never (a worker's clone of one still shares
 * the page's memory), nor a view into a larger buffer (other fields may share it).
 */
function ownsBuffer(data: Float32Array): boolean {
  return (
    data.buffer instanceof ArrayBuffer &&
    data.byteOffset === 0 &&
    data.byteLength === data.buffer.byteLength
  );
}

function readField(
  sample: Fields,
  name: string,
  known: readonly number[] | undefined,
  writable: boolean,
): { value: FloatArray; flat: boolean } {
  const v = sample[name];
  let data: TypedArray;
  let shape: readonly number[];
  let flat: boolean;
  if (isTypedArray(v)) {
    data = v;
    const s = sample[name + SHAPE_SUFFIX];
    shape = Array.isArray(s) ? (s as number[]) : (known ?? [v.length]);
    flat = true;
  } else if (v !== null && typeof v === 'object' && isTypedArray((v as FloatArray).data)) {
    data = (v as FloatArray).data;
    shape = (v as FloatArray).shape;
    flat = false;
  } else {
    throw new TypeError(
      `augmentFields: field '${name}' must be a typed array or { data, shape }, got ${showValue(v)}`,
    );
  }
  // the working copy: the cached sample is never written; a sample that is
  // already the function's own copy (ctx.writable) is worked on in place
  // (`slice` / the typed-array constructor copy in bulk; `Float32Array.from`
  // goes value by value through the iterator, ~7x slower on a 224×224×3 image)
  const work =
    data instanceof Float32Array
      ? writable && ownsBuffer(data)
        ? data
        : data.slice()
      : new Float32Array(data);
  return { value: { data: work, shape }, flat };
}

function checkSize(name: string, value: FloatArray): void {
  let n = 1;
  for (const d of value.shape) n *= d;
  if (n !== value.data.length) {
    throw new RangeError(
      `augmentFields: field '${name}' has ${value.data.length} values but shape [${value.shape}]`,
    );
  }
}

/**
 * An in-thread augmentation (the DataLoader's `augment` option) that runs one
 * {@link Transform} per named field, in the order given, from the sample's
 * stream; every other field (labels, ids) is passed on as is. A field is a
 * typed array (its shape from a sibling `<name>Shape`, else `[length]`) or a
 * `{ data, shape }`; it comes out as a Float32Array of the same form (a
 * changed shape updates `<name>Shape`; `options.shapes` gives the shape of a
 * flat field without one). The input sample is not changed, unless
 * `ctx.writable` says it is the function's own copy: then its whole-buffer
 * Float32Array fields are transformed in place (no copy).
 * Tuple samples name fields by position (`'0'`, `'1'`).
 *
 * @example
 * new DataLoader(cached, {
 *   shuffle: true,
 *   augment: augmentFields({
 *     image: compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.03 })]),
 *     tabular: gaussianJitter({ std: 0.05 }),
 *   }),
 * });
 */
export function augmentFields<T extends object>(
  transforms: Readonly<Record<string, Transform>>,
  options: AugmentFieldsOptions = {},
): AugmentFn<T> {
  if (transforms === null || typeof transforms !== 'object') {
    throw new TypeError(`augmentFields needs { field: transform }, got ${showValue(transforms)}`);
  }
  optionsBag('augmentFields options', options);
  const shapes: Readonly<Record<string, readonly number[]>> = withDefault(
    'augmentFields shapes',
    options.shapes,
    {},
    (n, v) => object(n, v as Record<string, readonly number[]>),
  );
  for (const [name, shape] of Object.entries(shapes)) {
    arrayOf(`augmentFields shapes.${name}`, shape, positiveInt, 'an array of positive integers');
  }
  const entries = Object.entries(transforms);
  for (const [name, t] of entries) {
    if (t === null || typeof t !== 'object' || typeof t.draw !== 'function') {
      throw new TypeError(`augmentFields: '${name}' must be a transform, got ${showValue(t)}`);
    }
  }
  return (sample: T, ctx: AugmentContext): T => {
    if (sample === null || typeof sample !== 'object') {
      throw new TypeError(
        `augmentFields needs an object or tuple sample, got ${showValue(sample)}`,
      );
    }
    const out = (Array.isArray(sample) ? sample.slice() : { ...sample }) as Fields;
    const writable = ctx.writable === true;
    for (const [name, t] of entries) {
      const { value, flat } = readField(sample as Fields, name, shapes[name], writable);
      checkSize(name, value);
      const d = t.draw(ctx.rng, value.shape);
      const r = d === undefined ? value : t.apply(value, d);
      if (flat) {
        out[name] = r.data;
        if (r.shape !== value.shape && Array.isArray((sample as Fields)[name + SHAPE_SUFFIX])) {
          out[name + SHAPE_SUFFIX] = [...r.shape];
        }
      } else {
        out[name] = { data: r.data, shape: r.shape };
      }
    }
    return out as T;
  };
}
