import type { Batch, BatchField, TypedArray } from '@medfusion/core';
import { badRange, optionsBag } from '@medfusion/core/internal';
import { type DataType, type Tensor, tensor } from '@tensorflow/tfjs-core';

/** Tensor element types a batch field can become. */
export type TensorDtype = 'float32' | 'int32';

/** The dtype a field gets by default: float arrays → float32, integer arrays → int32. */
export function defaultDtype(data: TypedArray): TensorDtype {
  return data instanceof Float32Array || data instanceof Float64Array ? 'float32' : 'int32';
}

/** `shape` with one `-1` replaced so that it holds `size` elements; checked. */
function resolveShape(shape: readonly number[], size: number): number[] {
  const out = shape.slice();
  let known = 1;
  let free = -1;
  for (let i = 0; i < out.length; i++) {
    const d = out[i]!;
    if (d === -1 && free < 0) free = i;
    else if (Number.isInteger(d) && d >= 0) known *= d;
    else throw new RangeError(`shape [${shape.join(', ')}] has a bad dimension ${d}`);
  }
  if (free >= 0 && known > 0 && size % known === 0) out[free] = size / known;
  const total = out.reduce((a, b) => a * b, 1);
  if (total !== size)
    throw new RangeError(`shape [${shape.join(', ')}] does not hold ${size} elements`);
  return out;
}

/**
 * A fresh tensor holding a copy of one batch field. The copy matters: TF.js
 * keeps a typed array passed to `tf.tensor` as the tensor's storage, while
 * batch arrays come from the collate pool and are overwritten a few batches
 * later. Converting types (e.g. Uint8 → float32) copies in the same pass.
 *
 * @param dtype tensor dtype; defaults to {@link defaultDtype}
 * @param shape tensor shape instead of `field.shape`; one `-1` is inferred
 *   (e.g. `[-1, 1]` for labels a sigmoid output compares against)
 * @example
 * const x = fieldToTensor(batch.image, 'float32'); // shape batch.image.shape
 * const y = fieldToTensor(batch.label, 'float32', [-1, 1]); // [B, 1]
 */
export function fieldToTensor(
  field: BatchField,
  dtype: TensorDtype = defaultDtype(field.data),
  shape: readonly number[] = field.shape,
): Tensor {
  const { data } = field;
  let values: Float32Array | Int32Array;
  if (dtype === 'float32')
    values = data instanceof Float32Array ? data.slice() : Float32Array.from(data);
  else if (dtype === 'int32')
    values = data instanceof Int32Array ? data.slice() : Int32Array.from(data);
  else throw badRange('dtype', "'float32' or 'int32'", dtype);
  return tensor(values, resolveShape(shape, data.length), dtype as DataType);
}

/**
 * One fresh tensor per batch field (see {@link fieldToTensor}); for custom
 * training loops. The caller owns (and disposes) the tensors.
 *
 * @param dtypes per-field dtype overrides, e.g. `{ label: 'float32' }`
 * @example
 * for await (const batch of loader) {
 *   const t = batchToTensors(batch, { label: 'float32' });
 *   optimizer.minimize(() => loss(model.predict(t.image), t.label));
 *   tf.dispose(t);
 * }
 */
export function batchToTensors(
  batch: Batch,
  dtypes: Readonly<Record<string, TensorDtype>> = {},
): Record<string, Tensor> {
  optionsBag('dtypes', dtypes);
  const out: Record<string, Tensor> = {};
  try {
    for (const key of Object.keys(batch)) out[key] = fieldToTensor(batch[key]!, dtypes[key]);
  } catch (e) {
    for (const t of Object.values(out)) t.dispose();
    throw e;
  }
  return out;
}
