import type { Speculation } from './Speculation.js';

/**
 * How a load is to be scheduled: the options of {@link Executor.run}, and
 * (with the caller's signal added) of `Dataset.get` (`GetOptions`).
 */
export interface RunOptions {
  /**
   * Marks the load speculative (a prefetch): an executor or dataset that
   * queues work (a worker pool, request slots per origin) starts every queued
   * demand load (one without a speculation, or whose speculation was
   * promoted) before it. Omitted: a demand load, a reader waits for it.
   * @default undefined (demand)
   */
  readonly speculation?: Speculation;
}

/**
 * Runs sample loads somewhere: on this thread (the default) or in a pool of
 * Web Workers (`createWorkerExecutor` in `@medfusion/web`). The prefetch
 * engine decides *what* to load and when; an executor decides *where*, and
 * in what order when it queues: demand calls before speculative ones.
 */
export interface Executor<T> {
  /**
   * Load sample `index`; must reject (not hang) when `signal` aborts.
   * `input`, when given, goes with the call to the loader (an executor that
   * loads by index alone ignores it); `options.speculation` marks a
   * speculative call (see {@link RunOptions}).
   */
  run(index: number, signal: AbortSignal, input?: unknown, options?: RunOptions): Promise<T>;
  /** Free whatever the executor started (workers, timers). Optional. */
  close?(): void | Promise<void>;
}
