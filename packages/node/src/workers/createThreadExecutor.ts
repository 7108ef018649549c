import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  AbortError,
  ClosedError,
  type Executor,
  LoadError,
  LoadTimeoutError,
} from '@medfusion/core';
import {
  arrayOf,
  deserializeError,
  nonEmptyString,
  object,
  positiveInt,
  positiveMs,
  withDefault,
} from '@medfusion/core/internal';
import type { ThreadReply, ThreadRequest } from './threadProtocol.js';

/** Options of {@link createThreadExecutor}. */
export interface ThreadExecutorOptions {
  /**
   * The module each worker thread runs (it calls `exposeLoader`): a file URL or path.
   * @example new URL('./loader.worker.js', import.meta.url)
   */
  worker: URL | string;
  /**
   * Worker threads in the pool.
   * @default min(4, availableParallelism() - 1), at least 1
   */
  poolSize?: number;
  /**
   * Longest wait for one load; past it the call rejects with `LoadTimeoutError`.
   * @default 30000
   */
  callTimeoutMs?: number;
  /**
   * Node options of each thread (`--conditions`, `--import`, …), as `new Worker`'s `execArgv`.
   * @default the process's own (`process.execArgv`), as a worker thread inherits them
   */
  execArgv?: string[];
}

/** A pool of worker threads running a loader: an `Executor` for `PrefetchDataset` and the factories. */
export interface ThreadExecutor<T> extends Executor<T> {
  /** Load sample `index` in a worker thread; rejects (never hangs) on abort, timeout, a thread's exit or close. */
  run(index: number, signal?: AbortSignal, input?: unknown): Promise<T>;
  /** Loads in flight now. */
  readonly inFlight: number;
  /** Terminate every thread; pending calls reject with `ClosedError`. Idempotent. */
  close(): Promise<void>;
}

interface Call {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  index: number;
}

interface Thread {
  worker: Worker;
  calls: Map<number, Call>;
}

/**
 * Run sample loads in a pool of Node worker threads, so decoding leaves the main thread (the
 * seed's `num_workers` loaders as threads): each call goes to the least busy thread; a call
 * rejects on abort (which reaches the loader's signal), on `callTimeoutMs`, when its thread
 * exits (the thread is replaced), and on close. The thread's module calls {@link exposeLoader}.
 *
 * @example
 * const executor = createThreadExecutor<Sample>({ worker: new URL('./loader.worker.js', import.meta.url), poolSize: 2 });
 * const ds = createCachedDataset(source, { cacheType: 'both', executor, cacheDir: './cache' });
 */
export function createThreadExecutor<T>(options: ThreadExecutorOptions): ThreadExecutor<T> {
  object('options', options, 'an object with a worker');
  const where = options.worker;
  if (!(where instanceof URL) && (typeof where !== 'string' || where === '')) {
    throw new TypeError(`worker must be a URL or a non-empty path, got ${String(where)}`);
  }
  const poolSize = withDefault(
    'poolSize',
    options.poolSize,
    Math.max(1, Math.min(4, availableParallelism() - 1)),
    positiveInt,
  );
  const timeoutMs = withDefault('callTimeoutMs', options.callTimeoutMs, 30_000, positiveMs);
  const execArgv = withDefault('execArgv', options.execArgv, undefined, (n, v) =>
    arrayOf(n, v, nonEmptyString, 'an array of Node options'),
  );
  let closed = false;
  let seq = 0;
  let inFlight = 0;

  const start = (): Thread => {
    const t: Thread = {
      worker: new Worker(where, execArgv === undefined ? {} : { execArgv }),
      calls: new Map(),
    };
    t.worker.unref();
    t.worker.on('message', (m: ThreadReply) => {
      const c = t.calls.get(m.id);
      if (!c) return;
      t.calls.delete(m.id);
      if (m.ok) c.resolve(m.value);
      else c.reject(deserializeError(m.error));
    });
    const gone = (why: unknown) => {
      const i = threads.indexOf(t);
      if (i >= 0 && !closed) threads[i] = start();
      for (const c of t.calls.values()) c.reject(new LoadError(c.index, why));
      t.calls.clear();
    };
    t.worker.on('error', gone);
    t.worker.on('exit', (code) => gone(new Error(`its worker thread exited with code ${code}`)));
    return t;
  };
  const threads: Thread[] = Array.from({ length: poolSize }, start);

  return {
    get inFlight() {
      return inFlight;
    },
    run(index, signal, input) {
      if (closed) return Promise.reject(new ClosedError('ThreadExecutor'));
      if (signal?.aborted) return Promise.reject(new AbortError());
      let t = threads[0]!;
      for (const x of threads) if (x.calls.size < t.calls.size) t = x;
      const id = ++seq;
      inFlight++;
      return new Promise<T>((resolve, reject) => {
        const done = () => {
          inFlight--;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        const fail = (e: unknown) => {
          if (!t.calls.delete(id)) return;
          t.worker.postMessage({ type: 'abort', id } satisfies ThreadRequest);
          done();
          reject(e);
        };
        const onAbort = () => fail(new AbortError());
        const timer = setTimeout(() => fail(new LoadTimeoutError(index, timeoutMs)), timeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        t.calls.set(id, {
          index,
          resolve: (v) => {
            done();
            resolve(v as T);
          },
          reject: (e) => {
            done();
            reject(e);
          },
        });
        t.worker.postMessage({ type: 'run', id, index, input } satisfies ThreadRequest);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const t of threads) {
        for (const c of t.calls.values()) c.reject(new ClosedError('ThreadExecutor'));
        t.calls.clear();
      }
      await Promise.all(threads.map((t) => t.worker.terminate()));
    },
  };
}
