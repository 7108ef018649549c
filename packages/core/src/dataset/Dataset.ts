import type { PlanInput } from '../plan/EpochPlan.js';
import { index as checkIndex, func, nonNegativeInt, showValue } from '../util/validate.js';
import type { RunOptions } from './Executor.js';

/**
 * Options passed to {@link Dataset.get}: an executor's {@link RunOptions}
 * (the speculation of a prefetch) plus the caller's signal, so a load passes
 * on as one object between datasets and executors.
 */
export interface GetOptions extends RunOptions {
  /** Aborts the load; a loader should stop work and reject when it fires. */
  signal?: AbortSignal;
}

/**
 * A random-access collection of samples, the TypeScript twin of PyTorch's
 * map-style `Dataset`. Every cache, prefetcher and loader in MedFusion takes
 * and returns one.
 *
 * @example
 * const ds: Dataset<number> = { length: 3, get: (i) => i * 2 };
 */
export interface Dataset<T> {
  /** Number of samples; indices are the integers in [0, length). */
  readonly length: number;
  /** Load sample `index` (sync or async). */
  get(index: number, opts?: GetOptions): T | Promise<T>;
}

/**
 * A dataset that can be told the order of the coming accesses (the epoch's
 * plan). The DataLoader hands an `EpochPlan` (a function of the position,
 * iterable, never materialised); callers may hand an array. Normalise with
 * `toEpochPlan` (from `@medfusion/core/internal`) and read it through a
 * window: a plan can be a billion reads long.
 */
export interface PlanAware {
  /** Hand over the indices that will be read next, in order. */
  setPlan(order: PlanInput): void;
}

/**
 * Check a plan handed to `setPlan` and copy it: an array-like of integers in
 * [0, length). Throws TypeError / RangeError naming the bad position and value.
 *
 * @example
 * class Numbers implements Dataset<number> {
 *   readonly length = 10;
 *   private plan: Uint32Array = new Uint32Array(0);
 *   get(index: number) { return index; }
 *   setOrder(order: ArrayLike<number>) { this.plan = checkPlan(order, this.length); }
 * }
 */
export function checkPlan(order: ArrayLike<number>, length: number, name = 'order'): Uint32Array {
  if (order === null || typeof order !== 'object' || typeof order.length !== 'number') {
    throw new TypeError(`${name} must be an array-like of indices, got ${showValue(order)}`);
  }
  const plan = new Uint32Array(order.length);
  for (let i = 0; i < plan.length; i++) plan[i] = checkIndex(order[i], length, `${name}[${i}]`);
  return plan;
}

/** True when `dataset` accepts a plan through `setPlan`. */
export function isPlanAware(dataset: object): dataset is PlanAware {
  return typeof (dataset as Partial<PlanAware>).setPlan === 'function';
}

/** A function that loads sample `index`; `signal` aborts it. */
export type Loader<T> = (index: number, signal?: AbortSignal) => T | Promise<T>;

/**
 * Wrap an array (or any array-like) as a {@link Dataset}.
 *
 * @example
 * const ds = fromArray([{ label: 0 }, { label: 1 }]);
 * ds.get(1); // { label: 1 }
 */
export function fromArray<T>(items: ArrayLike<T>): Dataset<T> {
  if (items === null || typeof items !== 'object' || typeof items.length !== 'number') {
    throw new TypeError(`items must be an array-like, got ${showValue(items)}`);
  }
  const length = items.length;
  return {
    length,
    get(index: number): T {
      checkIndex(index, length);
      return items[index] as T;
    },
  };
}

/**
 * Build a {@link Dataset} from a length and a loader function, the usual way to
 * describe a source that fetches or decodes on demand.
 *
 * @example
 * const ds = fromLoader(10_000, async (i, signal) => {
 *   const res = await fetch(`/images/${i}.png`, { signal });
 *   return new Uint8Array(await res.arrayBuffer());
 * });
 */
export function fromLoader<T>(length: number, loader: Loader<T>): Dataset<T> {
  nonNegativeInt('length', length);
  func('loader', loader);
  return {
    length,
    get(index: number, opts?: GetOptions): T | Promise<T> {
      checkIndex(index, length);
      return loader(index, opts?.signal);
    },
  };
}
