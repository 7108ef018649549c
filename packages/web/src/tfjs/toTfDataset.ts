import type { Batch } from '@medfusion/core';
import {
  arrayOf,
  badRange,
  badType,
  bool,
  object,
  oneOfValues,
  showValue,
  string,
  withDefault,
} from '@medfusion/core/internal';
import type { Tensor } from '@tensorflow/tfjs-core';
import { fieldToTensor, type TensorDtype } from './batchToTensors.js';

/** What a model input or target can be: one tensor, several, or one per named input. */
export type TensorsSpec = Tensor | Tensor[] | Record<string, Tensor>;

/**
 * How to turn a batch into model inputs or targets: a function of the batch,
 * a field name (`'image'`), a list of field names (several inputs in order),
 * or `{ inputName: fieldName }` for a multi-input model. Field names build
 * fresh tensors with {@link fieldToTensor}; functions must build fresh tensors
 * too (copy pooled arrays, e.g. with `fieldToTensor`), since fitDataset disposes them.
 */
export type BatchMapping<B> =
  | ((batch: B) => TensorsSpec)
  | string
  | readonly string[]
  | Readonly<Record<string, string>>;

/** Options of {@link toTfDataset}. */
export interface TfDatasetOptions<B> {
  /** Model inputs of a batch. */
  xs: BatchMapping<B>;
  /** Model targets of a batch. */
  ys: BatchMapping<B>;
  /**
   * Dtype per field for field-name mappings.
   * @default float arrays → 'float32', integer arrays → 'int32'
   */
  dtypes?: Readonly<Record<string, TensorDtype>>;
  /**
   * Tensor shape per field for field-name mappings, one `-1` inferred, e.g.
   * `{ label: [-1, 1] }` for a one-unit sigmoid output.
   * @default the batch field's shape
   */
  shapes?: Readonly<Record<string, readonly number[]>>;
  /**
   * Keep going into the next epoch instead of ending the iterator; use with
   * `fitDataset(ds, { batchesPerEpoch })`, which keeps one iterator for the whole run.
   * @default false
   */
  repeat?: boolean;
}

/** The loader surface toTfDataset needs (a `DataLoader` has it). */
export interface BatchSource<B> extends AsyncIterable<B> {
  /** Batches per epoch. */
  readonly length: number;
}

/** An element of the dataset: model inputs and targets. */
export interface TfElement {
  /** Inputs. */
  xs: TensorsSpec;
  /** Targets. */
  ys: TensorsSpec;
}

/** What `model.fitDataset` and `model.evaluateDataset` accept (TF.js 4.22). */
export interface TfDataset<T> {
  /** Batches per epoch (fitDataset uses it as steps per epoch). */
  readonly size: number;
  /** A new iterator over one epoch; it starts reading on its first `next()`. */
  iterator(): Promise<{ next(): Promise<IteratorResult<T>> }>;
}

/** A dimension of a tensor shape: a positive integer, or -1 (inferred). */
function dimension(name: string, v: unknown): number {
  if (typeof v !== 'number') throw badType(name, 'a positive integer or -1', v);
  if (!(Number.isInteger(v) && (v > 0 || v === -1))) {
    throw badRange(name, 'a positive integer or -1', v);
  }
  return v;
}

function mapper<B>(
  mapping: BatchMapping<B>,
  dtypes: Readonly<Record<string, TensorDtype>>,
  shapes: Readonly<Record<string, readonly number[]>>,
  which: string,
) {
  if (typeof mapping === 'function') return mapping;
  const field = (batch: B, name: string): Tensor => {
    const f = (batch as Batch)[name];
    if (f === undefined || typeof f !== 'object' || !('data' in f)) {
      throw new RangeError(`${which} names field "${name}", which the batch does not have`);
    }
    return fieldToTensor(f, dtypes[name], shapes[name]);
  };
  if (typeof mapping === 'string') return (batch: B) => field(batch, mapping);
  if (Array.isArray(mapping)) {
    const names = arrayOf(which, mapping, string, 'a list of field names');
    return (batch: B) => {
      const out: Tensor[] = [];
      try {
        for (const n of names) out.push(field(batch, n));
      } catch (e) {
        for (const t of out) t.dispose();
        throw e;
      }
      return out;
    };
  }
  if (mapping !== null && typeof mapping === 'object') {
    const entries = Object.entries(mapping as Record<string, string>);
    return (batch: B) => {
      const out: Record<string, Tensor> = {};
      try {
        for (const [input, name] of entries) out[input] = field(batch, name);
      } catch (e) {
        for (const t of Object.values(out)) t.dispose();
        throw e;
      }
      return out;
    };
  }
  throw new TypeError(
    `${which} must be a function, a field name, a list or a map of field names, got ${showValue(mapping)}`,
  );
}

function disposeAll(spec: TensorsSpec): void {
  if (Array.isArray(spec)) for (const t of spec) t.dispose();
  else if (typeof (spec as Tensor).dispose === 'function') (spec as Tensor).dispose();
  else for (const t of Object.values(spec as Record<string, Tensor>)) t.dispose();
}

/**
 * Adapt a {@link BatchSource} (a `DataLoader`) to TF.js `model.fitDataset`.
 * Each `iterator()` covers one loader epoch (`repeat: true`: runs on); it only
 * starts the loader on its first `next()` (fitDataset creates one iterator it
 * never reads), serialises concurrent `next()` calls, and builds fresh tensors
 * per batch which fitDataset disposes — nothing keeps tensors. Starting a new
 * iterator closes a previous unfinished one, so an early-stopped fit does not
 * wedge the loader.
 *
 * @example
 * const loader = new DataLoader(cached, { batchSize: 32, shuffle: true, toFloat32: { scale: 1 / 255 } });
 * await model.fitDataset(toTfDataset(loader, { xs: 'image', ys: 'label', dtypes: { label: 'float32' } }), { epochs: 5 });
 */
export function toTfDataset<B>(
  loader: BatchSource<B>,
  options: TfDatasetOptions<B>,
): TfDataset<TfElement> {
  if (
    loader === null ||
    typeof loader !== 'object' ||
    typeof loader[Symbol.asyncIterator] !== 'function'
  ) {
    throw new TypeError(
      `loader must be a DataLoader (an async iterable with length), got ${showValue(loader)}`,
    );
  }
  object('options', options, '{ xs, ys }');
  const dtypes = withDefault('dtypes', options.dtypes, {}, (name, v) => {
    const d = object(name, v as Record<string, unknown>);
    for (const [k, t] of Object.entries(d)) {
      oneOfValues(`${name}.${k}`, t, ['float32', 'int32'] as const);
    }
    return d as Readonly<Record<string, TensorDtype>>;
  });
  const shapes = withDefault('shapes', options.shapes, {}, (name, v) => {
    const s = object(name, v as Record<string, unknown>);
    for (const [k, shape] of Object.entries(s))
      arrayOf(`${name}.${k}`, shape, dimension, 'a shape');
    return s as Readonly<Record<string, readonly number[]>>;
  });
  const xs = mapper(options.xs, dtypes, shapes, 'xs');
  const ys = mapper(options.ys, dtypes, shapes, 'ys');
  const repeat = withDefault('repeat', options.repeat, false, bool);
  let live: EpochIterator<B> | undefined;

  class EpochIterator<T> {
    private source: AsyncIterator<T> | undefined;
    private tail: Promise<unknown> = Promise.resolve();
    private finished = false;
    private yielded = false;

    next(): Promise<IteratorResult<TfElement>> {
      const step = this.tail.then(() => this.step());
      this.tail = step.catch(() => undefined);
      return step;
    }

    async close(): Promise<void> {
      this.finished = true;
      const s = this.source;
      this.source = undefined;
      if (s !== undefined) await s.return?.();
    }

    private async step(): Promise<IteratorResult<TfElement>> {
      try {
        return await this.advance();
      } catch (e) {
        // a failed load or mapping ends this iterator and frees the loader
        await this.close().catch(() => undefined);
        if (live === (this as unknown)) live = undefined;
        throw e;
      }
    }

    private async advance(): Promise<IteratorResult<TfElement>> {
      for (;;) {
        if (this.finished) return { done: true, value: undefined };
        if (this.source === undefined) {
          if (live !== undefined && live !== (this as unknown)) await live.close();
          live = this as unknown as EpochIterator<B>;
          this.source = (loader as unknown as AsyncIterable<T>)[Symbol.asyncIterator]();
        }
        const r = await this.source.next();
        if (!r.done) {
          this.yielded = true;
          const x = xs(r.value as unknown as B);
          let y: TensorsSpec;
          try {
            y = ys(r.value as unknown as B);
          } catch (e) {
            disposeAll(x);
            throw e;
          }
          return { done: false, value: { xs: x, ys: y } };
        }
        this.source = undefined;
        // an empty epoch would make `repeat` spin forever: end instead
        if (!repeat || !this.yielded) {
          this.finished = true;
          if (live === (this as unknown)) live = undefined;
        }
        this.yielded = false;
      }
    }
  }

  return {
    get size() {
      return loader.length;
    },
    async iterator() {
      return new EpochIterator<B>();
    },
  };
}
