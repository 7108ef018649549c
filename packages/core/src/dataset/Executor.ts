/**
 * Runs sample loads somewhere: on this thread (the default) or in a pool of
 * Web Workers (`createWorkerExecutor` in `@medfusion/web`). The prefetch
 * engine decides *what* to load and when; an executor decides *where*.
 */
export interface Executor<T> {
  /** Load sample `index`; must reject (not hang) when `signal` aborts. */
  run(index: number, signal: AbortSignal): Promise<T>;
  /** Free whatever the executor started (workers, timers). Optional. */
  close?(): void | Promise<void>;
}
