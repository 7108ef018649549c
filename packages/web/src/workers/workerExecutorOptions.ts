import { type Clock, systemClock } from '@medfusion/core';
import {
  clock as checkClock,
  fn,
  func,
  object,
  oneOfValues,
  positiveFinite,
  positiveInt,
  showValue,
  withDefault,
} from '@medfusion/core/internal';

/** How the pool learns that a worker died. */
export type WorkerLiveness = 'auto' | 'lock' | 'heartbeat';

/** Options of {@link createWorkerExecutor}. */
export interface WorkerExecutorOptions {
  /**
   * Makes one worker that runs {@link exposeLoader}. A factory, not a URL, so
   * your bundler sees the `new Worker(new URL(...), ...)` pattern and bundles it.
   * @example () => new Worker(new URL('./my-loader.worker.ts', import.meta.url), { type: 'module' })
   */
  worker: () => Worker;
  /**
   * Web Workers in the pool, kept alive; a dead one is replaced at once. Not
   * the engine's `numWorkers` (loads in flight): each worker takes up to
   * `concurrency` of those at a time. `'auto'`: one worker per core left to
   * the thread that trains (`navigator.hardwareConcurrency - 1`, at least 1),
   * chosen once at creation (decoding needs a core per worker; more workers
   * than free cores only contend). Not tuned online.
   * @default 2
   * @example 'auto' // 7 workers on an 8-core machine, 1 on a 2-core one
   */
  poolSize?: number | 'auto';
  /**
   * Bound on one call inside a worker, from its dispatch (re-armed for the one
   * retry after a crash); past it the call rejects with `LoadTimeoutError`, its
   * worker-side signal aborts and the worker is pinged (replaced if silent).
   * Waiting in the queue is bounded by the calls ahead and by `startTimeoutMs`.
   * @default 30000
   */
  callTimeoutMs?: number;
  /**
   * Bound on a worker's start (module load + handshake); a worker that misses it
   * is terminated and replaced.
   * @default 10000
   */
  startTimeoutMs?: number;
  /**
   * Calls in flight on one worker; further calls wait in one queue, in the
   * order called except that demand calls go before speculative ones.
   * @default 16
   */
  concurrency?: number;
  /**
   * Web Workers that take speculative calls (`run`'s `options.speculation`,
   * the engine's prefetches): the cores free for decoding ahead of need.
   * Demand calls go to every worker; speculative ones only to the first
   * `speculativeWorkers` ready workers, so decoding ahead never takes the
   * core of the thread that trains. Queued speculative calls wait for room there.
   * @default max(1, min(poolSize, navigator.hardwareConcurrency - 1)): one core left to the training thread
   * @example 1 // a 2-core machine training on one core
   */
  speculativeWorkers?: number;
  /**
   * How a dead worker is noticed. `lock`: each worker holds a Web Lock for its
   * whole life, freed the moment it dies (even by a silent `self.close()`).
   * `heartbeat`: busy workers are pinged every `heartbeatMs`. `auto`: `lock`
   * when `navigator.locks` exists, else `heartbeat`. Either way a worker that
   * stays silent after one of its calls timed out is pinged and replaced.
   * @default 'auto'
   */
  liveness?: WorkerLiveness;
  /**
   * Ping period (heartbeat liveness) and the time a ping may take before its
   * worker is declared dead.
   * @default 1000
   */
  heartbeatMs?: number;
  /**
   * Workers that die before finishing their start, in a row, after which the
   * pool gives up: queued and later calls reject with `WorkerCrashedError`.
   * @default 3
   */
  maxStartFailures?: number;
  /** Told about every worker the pool declares dead (for logging). */
  onCrash?: (event: WorkerCrashEvent) => void;
  /**
   * Time source for every timeout.
   * @default systemClock
   */
  clock?: Clock;
}

/** What {@link WorkerExecutorOptions.onCrash} receives. */
export interface WorkerCrashEvent {
  /** Sequence number of the dead worker within this pool (0, 1, ...). */
  workerId: number;
  /** Why it was declared dead. */
  reason: string;
  /** Indices it was loading (retried once on a fresh worker, or failed). */
  indices: number[];
}

/** Counters of a {@link WorkerExecutor}. */
export interface WorkerExecutorStats {
  /** Workers started and not (yet) dead. */
  liveWorkers: number;
  /** Live workers that finished their start and take calls. */
  readyWorkers: number;
  /** Calls currently inside a worker. */
  inFlight: number;
  /** Calls waiting for a worker. */
  queued: number;
  /** Calls resolved with a sample. */
  completed: number;
  /** Workers declared dead (crashed, failed to start, unresponsive). */
  crashes: number;
  /** Calls sent again to a fresh worker after theirs died. */
  retries: number;
  /** Calls that hit `callTimeoutMs`. */
  timeouts: number;
}

/** {@link WorkerExecutorOptions} checked and with defaults filled in. */
export interface ResolvedWorkerExecutorOptions {
  worker: () => Worker;
  poolSize: number;
  callTimeoutMs: number;
  startTimeoutMs: number;
  concurrency: number;
  speculativeWorkers: number;
  heartbeatMs: number;
  maxStartFailures: number;
  /** True for Web-Lock liveness, false for heartbeat. */
  useLocks: boolean;
  onCrash: ((event: WorkerCrashEvent) => void) | undefined;
  clock: Clock;
}

/** Check `options` (TypeError/RangeError naming the option and value) and fill defaults. */
export function resolveWorkerExecutorOptions(
  options: WorkerExecutorOptions,
): ResolvedWorkerExecutorOptions {
  object('options', options);
  const worker = options.worker;
  func('worker', worker, 'a function returning a Worker');
  const liveness = withDefault('liveness', options.liveness, 'auto', (name, v) =>
    oneOfValues(name, v, ['auto', 'lock', 'heartbeat'] as const),
  );
  const hasLocks = typeof navigator !== 'undefined' && navigator.locks !== undefined;
  if (liveness === 'lock' && !hasLocks) {
    throw new RangeError("liveness 'lock' needs navigator.locks (a secure context)");
  }
  if ('numWorkers' in options) {
    throw new TypeError(
      'numWorkers is not an option of createWorkerExecutor: the number of Web Workers is ' +
        `poolSize (got numWorkers: ${showValue((options as { numWorkers?: unknown }).numWorkers)}); ` +
        "numWorkers is the engine's loads in flight",
    );
  }
  const onCrash = withDefault(
    'onCrash',
    options.onCrash,
    undefined,
    fn<(e: WorkerCrashEvent) => void>,
  );
  const poolSize =
    options.poolSize === 'auto'
      ? freeCores()
      : intOption('poolSize', options.poolSize, 2, " or 'auto'");
  return {
    worker,
    poolSize,
    callTimeoutMs: msOption('callTimeoutMs', options.callTimeoutMs, 30_000),
    startTimeoutMs: msOption('startTimeoutMs', options.startTimeoutMs, 10_000),
    concurrency: intOption('concurrency', options.concurrency, 16),
    speculativeWorkers: intOption(
      'speculativeWorkers',
      options.speculativeWorkers,
      Math.max(1, Math.min(poolSize, freeCores())),
    ),
    heartbeatMs: msOption('heartbeatMs', options.heartbeatMs, 1000),
    maxStartFailures: intOption('maxStartFailures', options.maxStartFailures, 3),
    useLocks: liveness === 'lock' || (liveness === 'auto' && hasLocks),
    onCrash,
    clock: withDefault('clock', options.clock, systemClock, checkClock),
  };
}

/** Cores left when one trains: `navigator.hardwareConcurrency - 1` (1 when unknown). */
function freeCores(): number {
  const cores = typeof navigator === 'undefined' ? undefined : navigator.hardwareConcurrency;
  return typeof cores === 'number' && cores > 1 ? cores - 1 : 1;
}

/** A positive integer option or its default; `alsoAccepted` names the other values it takes. */
function intOption(name: string, value: unknown, fallback: number, alsoAccepted = ''): number {
  return withDefault(name, value, fallback, (n, v) => positiveInt(n, v, alsoAccepted));
}

function msOption(name: string, value: unknown, fallback: number): number {
  return withDefault(name, value, fallback, positiveFinite);
}
