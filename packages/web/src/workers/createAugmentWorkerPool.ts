import type { AsyncAugment, AugmentContext } from '@medfusion/core';
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
 * pool as the DataLoader's `augment`. Each call sends a copy of the cached
 * sample (structured clone; the page's buffers stay intact) with its seed,
 * epoch and index; the worker ({@link exposeAugment}) applies its recipe and
 * transfers the result back. Built on `createWorkerExecutor`: per-call
 * timeouts, dead-worker detection and one retry on a fresh worker.
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
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const { poolSize, ...rest } = options;
  if (
    poolSize !== undefined &&
    (typeof poolSize !== 'number' || !Number.isInteger(poolSize) || poolSize < 1)
  ) {
    const Err = typeof poolSize === 'number' ? RangeError : TypeError;
    throw new Err(`poolSize must be a positive integer, got ${String(poolSize)}`);
  }
  const executor: WorkerExecutor<T> = createWorkerExecutor<T>({
    ...rest,
    poolSize: poolSize ?? 2,
  });
  return {
    apply(sample: T, ctx: AugmentContext, signal?: AbortSignal): Promise<T> {
      const call: AugmentCall<T> = { sample, seed: ctx.seed, epoch: ctx.epoch };
      return executor.run(ctx.index, signal, call);
    },
    stats: () => executor.stats(),
    close: () => executor.close(),
  };
}
