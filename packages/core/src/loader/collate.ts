import type { ErrorCode } from '../errorCodes.js';
import { registerErrorClass } from '../errorRegistry.js';
import { MedFusionError } from '../errors.js';
import {
  isTypedArray,
  type ShapedArray,
  type TypedArray,
  type TypedArrayConstructor,
} from '../util/typedArrays.js';
import {
  arrayOf,
  nonNegativeInt,
  optionsBag,
  showValue,
  string,
  withDefault,
} from '../util/validate.js';
import { BufferPool } from './BufferPool.js';
import type {
  Batch,
  CollateContext,
  CollateFn,
  CollateOptions,
  Sample,
  SampleField,
} from './collateOptions.js';
import { normaliseKernel } from './normaliseKernels.js';
import { resolveToFloat32 } from './resolveToFloat32.js';

/** A sample does not match the batch's first sample, or holds a value collate cannot batch. */
export class CollateError extends MedFusionError {
  /** The field at fault. */
  readonly field: string;
  constructor(code: CollateErrorCode, index: number, field: string, message: string) {
    super(code, `Sample ${index}, field "${field}": ${message}`, { index });
    this.name = 'CollateError';
    this.field = field;
  }
}
registerErrorClass('CollateError', CollateError);

/** The codes a {@link CollateError} carries. */
type CollateErrorCode = Extract<ErrorCode, `COLLATE_${string}`>;

/** A sample seen through string keys (records and tuples alike). */
type FieldBag = Readonly<Record<string, SampleField | readonly number[] | undefined>>;

interface FieldPlan {
  key: string;
  shapeKey: string | undefined;
  kind: 'number' | 'array';
  ctor: TypedArrayConstructor;
  outCtor: TypedArrayConstructor;
  length: number;
  shape: readonly number[];
  isLabel: boolean;
  normalise: boolean;
}

const SHAPE_SUFFIX = 'Shape';

function isShapeArray(value: unknown): value is readonly number[] {
  return Array.isArray(value) && value.every((d) => Number.isInteger(d) && d >= 0);
}

function product(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Build the default collate: for objects of typed arrays and numbers, one
 * contiguous typed array per field, batch first, with its shape. Numbers in
 * `labelFields` become Int32Array `[B]`, other numbers Float32Array `[B]`;
 * a flat array of n elements becomes `[B, n]`; a {@link ShapedArray} (or a
 * flat array with an `xShape` sibling) becomes `[B, ...shape]`. Arrays keep
 * their element type unless `toFloat32` names the field. Output arrays come
 * from a {@link BufferPool} of depth `batchBuffers`.
 *
 * @example
 * const collate = createCollate({ toFloat32: { scale: 1 / 255 } });
 * const batch = collate([{ image: u8a, label: 1 }, { image: u8b, label: 0 }], { indices: [7, 3] });
 * batch.image.shape; // [2, u8a.length], Float32Array in [0, 1]
 * batch.label.data;  // Int32Array [1, 0]
 */
export function createCollate(options: CollateOptions = {}): CollateFn<Sample, Batch> {
  optionsBag('options', options);
  if ('poolSize' in options) throw renamedPoolSize((options as { poolSize?: unknown }).poolSize);
  const pool = new BufferPool(withDefault('batchBuffers', options.batchBuffers, 2, nonNegativeInt));
  const labelFields = new Set(
    withDefault('labelFields', options.labelFields, ['label', 'labels'], (name, v) =>
      arrayOf(name, v, string, 'an array of field names'),
    ),
  );
  const { mul, add, fields: normFields } = resolveToFloat32(options.toFloat32);

  function plan(tupleOrRecord: Sample, index: number): FieldPlan[] {
    const sample = tupleOrRecord as FieldBag;
    const plans: FieldPlan[] = [];
    for (const key of Object.keys(sample)) {
      const value = sample[key];
      if (key.endsWith(SHAPE_SUFFIX) && key.length > SHAPE_SUFFIX.length) {
        const base = key.slice(0, -SHAPE_SUFFIX.length);
        if (base in sample && isShapeArray(value)) continue;
      }
      const shapeKey = `${key}${SHAPE_SUFFIX}`;
      const sibling = sample[shapeKey];
      if (typeof value === 'number') {
        const isLabel = labelFields.has(key);
        const ctor = isLabel ? Int32Array : Float32Array;
        plans.push({
          key,
          shapeKey: undefined,
          kind: 'number',
          ctor,
          outCtor: ctor,
          length: 1,
          shape: [],
          isLabel,
          normalise: false,
        });
        continue;
      }
      let data: unknown;
      let shape: readonly number[] | undefined;
      let usedSibling: string | undefined;
      if (isTypedArray(value)) {
        data = value;
        if (isShapeArray(sibling)) {
          shape = sibling;
          usedSibling = shapeKey;
        }
      } else if (
        value !== null &&
        typeof value === 'object' &&
        'data' in value &&
        'shape' in value
      ) {
        data = (value as ShapedArray).data;
        shape = (value as ShapedArray).shape;
        if (!isShapeArray(shape)) {
          throw new CollateError(
            'COLLATE_TYPE',
            index,
            key,
            `shape must be an array of non-negative integers, got ${showValue(shape)}`,
          );
        }
      }
      if (!isTypedArray(data)) {
        throw new CollateError(
          'COLLATE_TYPE',
          index,
          key,
          `expected a number, a typed array or { data, shape }, got ${showValue(value)}`,
        );
      }
      const length = data.length;
      if (shape !== undefined && product(shape) !== length) {
        throw new CollateError(
          'COLLATE_SHAPE',
          index,
          key,
          `shape [${shape.join(', ')}] does not hold ${length} elements`,
        );
      }
      const ctor = data.constructor as TypedArrayConstructor;
      const normalise = normFields.has(key);
      if (normalise && length % mul.length !== 0) {
        throw new CollateError(
          'COLLATE_SHAPE',
          index,
          key,
          `${length} elements do not split into ${mul.length} channels of toFloat32.mean/std`,
        );
      }
      plans.push({
        key,
        shapeKey: usedSibling,
        kind: 'array',
        ctor,
        outCtor: normalise ? Float32Array : ctor,
        length,
        shape: shape ?? [length],
        isLabel: false,
        normalise,
      });
    }
    return plans;
  }

  return function collate(samples: readonly Sample[], context: CollateContext): Batch {
    const count = samples.length;
    const indexOf = (i: number): number => context.indices[i] ?? i;
    const first = samples[0];
    if (first === null || typeof first !== 'object' || isTypedArray(first)) {
      throw new CollateError(
        'COLLATE_TYPE',
        indexOf(0),
        '(sample)',
        `expected an object (or tuple) of typed arrays and numbers, got ${showValue(first)}; wrap a bare array as { x: array }`,
      );
    }
    const plans = plan(first, indexOf(0));
    pool.nextBatch();
    const batch: Batch = {};
    for (const p of plans) {
      const out = pool.acquire(p.key, p.outCtor, count * p.length);
      if (p.kind === 'number') {
        for (let i = 0; i < count; i++) {
          const v = (samples[i] as FieldBag | undefined)?.[p.key];
          if (typeof v !== 'number') {
            throw new CollateError(
              'COLLATE_MISMATCH',
              indexOf(i),
              p.key,
              `expected a number like sample ${indexOf(0)}, got ${showValue(v)}`,
            );
          }
          if (p.isLabel && (!Number.isInteger(v) || v < -2147483648 || v > 2147483647)) {
            throw new CollateError(
              'COLLATE_LABEL',
              indexOf(i),
              p.key,
              `a label must be an int32 integer, got ${v}`,
            );
          }
          out[i] = v;
        }
        batch[p.key] = { data: out, shape: [count] };
        continue;
      }
      const n = p.length;
      const kernel = normaliseKernel(mul.length);
      for (let i = 0; i < count; i++) {
        const s = samples[i] as FieldBag | undefined;
        const v = s?.[p.key];
        let data: TypedArray | undefined;
        let shape: readonly number[] | undefined;
        if (isTypedArray(v)) {
          data = v;
          shape =
            p.shapeKey === undefined
              ? undefined
              : (s?.[p.shapeKey] as readonly number[] | undefined);
        } else if (v !== null && typeof v === 'object' && 'data' in v) {
          data = (v as ShapedArray).data;
          shape = (v as ShapedArray).shape;
        }
        if (data === undefined || data.constructor !== p.ctor) {
          throw new CollateError(
            'COLLATE_MISMATCH',
            indexOf(i),
            p.key,
            `expected ${p.ctor.name} like sample ${indexOf(0)}, got ${showValue(data ?? v)}`,
          );
        }
        if (data.length !== n || (shape !== undefined && i > 0 && !sameShape(shape, p.shape))) {
          const got =
            shape === undefined ? `${data.length} elements` : `shape [${shape.join(', ')}]`;
          throw new CollateError(
            'COLLATE_SHAPE',
            indexOf(i),
            p.key,
            `expected shape [${p.shape.join(', ')}] like sample ${indexOf(0)}, got ${got}`,
          );
        }
        const base = i * n;
        if (!p.normalise) {
          out.set(data, base);
        } else {
          kernel(data, out as Float32Array, base, n, mul, add);
        }
      }
      batch[p.key] = { data: out, shape: [count, ...p.shape] };
    }
    return batch;
  };
}

/** The TypeError for the 0.1 name of `batchBuffers` (a silent default would reuse arrays a caller keeps). */
export function renamedPoolSize(value: unknown): TypeError {
  return new TypeError(
    `poolSize is now batchBuffers (output arrays in rotation; poolSize counts the Web Workers of createWorkerExecutor), got poolSize: ${showValue(value)}`,
  );
}
