import type { AsyncAugment, AugmentContext } from '@medfusion/core';
import { object, positiveInt, withDefault } from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import { createWorkerExecutor, type WorkerExecutor } from './createWorkerExecutor.js';
import type { AugmentCall } from './exposeAugment.js';
import type { WorkerExecutorOptions, WorkerExecutorStats } from './workerExecutorOptions.js';

/** Options of {@link createAugmentWorkerPool}: those of `createWorkerExecutor`, sized by `poolSize`. */
export interface AugmentWorkerPoolOptions extends Omit<WorkerExecutorOptions, 'numWorkers'> {
  /**
   * Makes one worker that runs {@link exposeAugment}.
   * @example () => new Worker(new URL('./augment.worker.ts', import.meta.url), { type: 'module' })
   */
  worker: () => Worker;
  /**
   * Workers in the pool.
   * @default 2
   */
  poolSize?: number;
}

/** A pool of Web Workers that augments samples: the DataLoader's `augment` option. */
export interface AugmentWorkerPool<T> extends AsyncAugment<T> {
  /** Counters of the underlying worker pool. */
  stats(): WorkerExecutorStats;
  /** Terminate every worker; pending calls reject with `ClosedError`. Idempotent. */
  close(): Promise<void>;
}

/**
 * Run the augment stage in a pool of Web Workers, after the cache: pass the
 * pool as the DataLoader's `augment`. Each call copies the cached sample's
 * typed arrays on the page and moves the copies to the worker (transfer: one
 * copy in all; a structured clone would copy them again in the worker), with
 * the seed, epoch and index; the page's buffers stay intact. The worker
 * ({@link exposeAugment}) applies its recipe in place and transfers the result
 * back. Built on `createWorkerExecutor`: per-call timeouts, dead-worker
 * detection and one retry on a fresh worker (with fresh copies).
 *
 * @example
 * const augment = createAugmentWorkerPool<Sample>({
 *   worker: () => new Worker(new URL('./augment.worker.ts', import.meta.url), { type: 'module' }),
 *   poolSize: 2,
 * });
 * const loader = new DataLoader(cached, { batchSize: 32, shuffle: true, augment });
 * // ... train ...
 * await augment.close();
 */
export function createAugmentWorkerPool<T>(
  options: AugmentWorkerPoolOptions,
): AugmentWorkerPool<T> {
  const { poolSize, ...rest } = object('options', options);
  const executor: WorkerExecutor<T> = createWorkerExecutor<T>({
    ...rest,
    poolSize: withDefault('poolSize', poolSize, 2, positiveInt),
  });
  return {
    apply(sample: T, ctx: AugmentContext, signal?: AbortSignal): Promise<T> {
      const { seed, epoch, index } = ctx;
      // fresh copies for each attempt: a retry after a crash cannot resend moved buffers
      const payload = () => {
        const moved: Transferable[] = [];
        const call: AugmentCall<T> = { sample: copyArrays(sample, moved) as T, seed, epoch };
        return Comlink.transfer(call, moved);
      };
      return executor.run(index, signal, payload);
    },
    stats: () => executor.stats(),
    close: () => executor.close(),
  };
}

/**
 * `value` with every typed array, DataView and ArrayBuffer it holds (in plain
 * objects and arrays, at any depth) replaced by a copy, whose buffer is pushed
 * to `moved`; everything else is kept as is (structured-cloned by the send).
 * Buffers shared with other threads are not copied: a clone shares them anyway.
 */
function copyArrays(value: unknown, moved: Transferable[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof ArrayBuffer) {
    const copy = value.slice(0);
    moved.push(copy);
    return copy;
  }
  if (ArrayBuffer.isView(value)) {
    if (!(value.buffer instanceof ArrayBuffer)) return value;
    const bytes = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
    moved.push(bytes);
    if (value instanceof DataView) return new DataView(bytes);
    const View = value.constructor as new (buffer: ArrayBuffer) => ArrayBufferView;
    return new View(bytes);
  }
  if (Array.isArray(value)) return value.map((v) => copyArrays(v, moved));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    out[key] = copyArrays((value as Record<string, unknown>)[key], moved);
  }
  return out;
}
