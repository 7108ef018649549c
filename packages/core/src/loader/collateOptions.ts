import type { ShapedArray, TypedArray } from '../util/typedArrays.js';

/** One collated field: `data` holds the whole batch, `shape[0]` is the batch size. */
export interface BatchField<A extends TypedArray = TypedArray> {
  /** Contiguous values of every sample, batch first. */
  data: A;
  /** `[batchSize, ...sampleShape]`. */
  shape: number[];
}

/** A collated batch: one {@link BatchField} per sample field. */
export type Batch = Record<string, BatchField>;

/**
 * What the default collate accepts as a sample field: a number, a flat typed
 * array (shape `[n]`), or a {@link ShapedArray}. A flat field `x` may also take
 * its shape from a sibling `xShape: number[]` (e.g. `image` + `imageShape`).
 */
export type SampleField = number | TypedArray | ShapedArray;

/**
 * A sample for the default collate, e.g. `{ image: Uint8Array, tabular: Float32Array, label: 3 }`,
 * or a tuple like the reference's `(image, tabular, label)`, whose batch fields are named
 * `'0'`, `'1'`, `'2'` (numbers in a tuple are Float32Array unless `labelFields` names their position).
 */
export type Sample =
  | Readonly<Record<string, SampleField | readonly number[]>>
  | readonly SampleField[];

/** What a collate function learns about the batch it builds. */
export interface CollateContext {
  /** Dataset index of each sample, in batch order (valid during the call only). */
  indices: ArrayLike<number>;
}

/**
 * Turns the samples of one batch into the batch value. `samples` is only valid
 * during the call (the loader reuses the array).
 */
export type CollateFn<T, B> = (samples: readonly T[], context: CollateContext) => B;

/** Normalisation applied while collating: `out = (x * scale - mean) / std`, as Float32Array. */
export interface ToFloat32Options {
  /**
   * Multiplies every value first, e.g. `1 / 255` for 8-bit images.
   * @default 1
   */
  scale?: number;
  /**
   * Subtracted after scaling; an array gives one value per channel (the last,
   * fastest-varying axis, i.e. HWC layout).
   * @default 0
   */
  mean?: number | ArrayLike<number>;
  /**
   * Divides after subtracting `mean`; number or one per channel like `mean`.
   * @default 1
   */
  std?: number | ArrayLike<number>;
  /**
   * Which fields to convert.
   * @default ['image']
   */
  fields?: readonly string[];
}

/** Options of {@link createCollate}. */
export interface CollateOptions {
  /**
   * Convert and normalise these typed-array fields to Float32Array in the same pass as the copy.
   * Without it every array field keeps its element type.
   */
  toFloat32?: ToFloat32Options;
  /**
   * Sets of output arrays used in rotation: a batch's arrays are reused
   * (overwritten) once `batchBuffers` more batches have been collated. `0`
   * allocates fresh arrays for every batch. (Called `poolSize` before 0.2;
   * `poolSize` now only counts Web Workers.)
   * @default 2
   */
  batchBuffers?: number;
  /**
   * Numeric fields collated as Int32Array (values must be int32 integers);
   * every other numeric field becomes Float32Array.
   * @default ['label', 'labels']
   */
  labelFields?: readonly string[];
}
