import {
  AbortError,
  type AbortSignalLike,
  type Clock,
  ClosedError,
  type Executor,
  LoadTimeoutError,
  systemClock,
  type TimerHandle,
} from '@medfusion/core';
import * as Comlink from 'comlink';
import { WorkerCrashedError, WorkerLoadError } from './workerErrors.js';
import { type LoadReply, serializeError, type WorkerApi } from './workerProtocol.js';

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
   * Workers kept alive; a dead one is replaced at once.
   * @default 2
   */
  numWorkers?: number;
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
   * Calls in flight on one worker; further calls wait in one FIFO queue.
   * @default 16
   */
  concurrency?: number;
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

/** A pool of Web Workers running a loader; an `Executor` for `PrefetchDataset`. */
export interface WorkerExecutor<T> extends Executor<T> {
  /** Load sample `index` in a worker; rejects (never hangs) on abort, timeout, crash or close. */
  run(index: number, signal?: AbortSignalLike): Promise<T>;
  /** Current counters. */
  stats(): WorkerExecutorStats;
  /** Terminate every worker and reject every pending call with `ClosedError`. Idempotent. */
  close(): Promise<void>;
}

interface Call {
  readonly id: number;
  readonly index: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignalLike | undefined;
  onAbort: (() => void) | undefined;
  timer: TimerHandle;
  attempts: number;
  slot: Slot | undefined;
  done: boolean;
}

interface Slot {
  readonly id: number;
  readonly worker: Worker;
  readonly api: Comlink.Remote<WorkerApi>;
  ready: boolean;
  dead: boolean;
  readonly calls: Map<number, Call>;
  /** Orphans of a dead worker, sent here first once this worker is ready. */
  readonly reserved: Call[];
  readonly lockAbort: AbortController | undefined;
  timer: TimerHandle | undefined;
  /** Pending ping's deadline timer, when a probe is out. */
  probeTimer: TimerHandle | undefined;
}

let poolSeq = 0;

/**
 * Run sample loads in a pool of Web Workers (comlink RPC), with no way to hang:
 * per-call timeouts, crash detection (Web Locks or heartbeat) with one retry on a
 * fresh worker, FIFO dispatch to the least busy worker, aborts that reach the
 * worker, zero-copy transfer of returned buffers. The worker side calls
 * {@link exposeLoader}.
 *
 * @example
 * const executor = createWorkerExecutor<Sample>({
 *   worker: () => new Worker(new URL('./my-loader.worker.ts', import.meta.url), { type: 'module' }),
 *   numWorkers: 2,
 * });
 * const prefetched = new PrefetchDataset(dataset, { prefetchSize: 10, executor });
 */
export function createWorkerExecutor<T>(options: WorkerExecutorOptions): WorkerExecutor<T> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const factory = options.worker;
  if (typeof factory !== 'function') {
    throw new TypeError(`worker must be a function returning a Worker, got ${String(factory)}`);
  }
  const numWorkers = intOption('numWorkers', options.numWorkers, 2);
  const callTimeoutMs = msOption('callTimeoutMs', options.callTimeoutMs, 30_000);
  const startTimeoutMs = msOption('startTimeoutMs', options.startTimeoutMs, 10_000);
  const concurrency = intOption('concurrency', options.concurrency, 16);
  const heartbeatMs = msOption('heartbeatMs', options.heartbeatMs, 1000);
  const maxStartFailures = intOption('maxStartFailures', options.maxStartFailures, 3);
  const liveness = options.liveness ?? 'auto';
  if (liveness !== 'auto' && liveness !== 'lock' && liveness !== 'heartbeat') {
    throw new RangeError(
      `liveness must be one of 'auto', 'lock', 'heartbeat', got ${String(liveness)}`,
    );
  }
  const hasLocks = typeof navigator !== 'undefined' && navigator.locks !== undefined;
  if (liveness === 'lock' && !hasLocks) {
    throw new RangeError("liveness 'lock' needs navigator.locks (a secure context)");
  }
  const useLocks = liveness === 'lock' || (liveness === 'auto' && hasLocks);
  const clock = options.clock ?? systemClock;
  const onCrash = options.onCrash;
  const pool = ++poolSeq;
  const lockPrefix = `medfusion-worker-${pool}-${Math.random().toString(36).slice(2)}`;

  const slots: Slot[] = [];
  const queue: Call[] = [];
  let callSeq = 0;
  let slotSeq = 0;
  let startFailures = 0;
  let broken: string | undefined;
  let closed = false;
  const counters = { completed: 0, crashes: 0, retries: 0, timeouts: 0 };

  function settle(call: Call, ok: boolean, value: unknown): void {
    if (call.done) return;
    call.done = true;
    clock.clearTimeout(call.timer);
    if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort);
    if (call.slot) {
      call.slot.calls.delete(call.id);
      call.slot = undefined;
    }
    if (ok) {
      counters.completed++;
      call.resolve(value);
    } else {
      call.reject(value);
    }
  }

  /** Leave the worker (telling it to abort), without settling the call. */
  function withdraw(call: Call): void {
    const slot = call.slot;
    if (slot && !slot.dead) {
      slot.api.abort(call.id).catch(() => {});
    }
  }

  function spawn(reserved: Call[] = []): void {
    let worker: Worker;
    try {
      worker = factory();
    } catch (error) {
      startFailed(`the worker factory threw: ${describe(error)}`, reserved);
      return;
    }
    const lockName = useLocks ? `${lockPrefix}-${slotSeq}` : null;
    const slot: Slot = {
      id: slotSeq++,
      worker,
      api: Comlink.wrap<WorkerApi>(worker),
      ready: false,
      dead: false,
      calls: new Map(),
      reserved,
      lockAbort: lockName === null ? undefined : new AbortController(),
      timer: undefined,
      probeTimer: undefined,
    };
    slots.push(slot);
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      kill(slot, `uncaught error in the worker: ${event.message || 'script failed to load'}`);
    });
    worker.addEventListener('messageerror', () => {
      kill(slot, 'a message from the worker could not be deserialized');
    });
    slot.timer = clock.setTimeout(
      () => kill(slot, `did not start within ${startTimeoutMs} ms`),
      startTimeoutMs,
    );
    slot.api.init(lockName).then(
      () => {
        if (slot.dead) return;
        clock.clearTimeout(slot.timer);
        slot.timer = undefined;
        slot.ready = true;
        startFailures = 0;
        if (lockName !== null && slot.lockAbort) {
          navigator.locks
            .request(lockName, { signal: slot.lockAbort.signal }, () => {
              kill(slot, 'the worker exited');
            })
            .catch(() => {});
        }
        const orphans = slot.reserved.splice(0);
        for (const call of orphans) if (!call.done) send(call, slot);
        pump();
      },
      (error: unknown) => kill(slot, `handshake failed: ${describe(error)}`),
    );
  }

  function startFailed(reason: string, reserved: Call[]): void {
    counters.crashes++;
    startFailures++;
    if (startFailures >= maxStartFailures) {
      breakPool(
        `workers failed to start ${startFailures} times in a row, last: ${reason}`,
        reserved,
      );
    } else if (!closed) {
      spawn(reserved);
    }
  }

  function breakPool(reason: string, reserved: Call[]): void {
    broken = reason;
    for (const call of [...reserved, ...queue.splice(0)]) {
      settle(call, false, new WorkerCrashedError(call.index, reason));
    }
  }

  /** Declare `slot` dead: terminate it, retry its calls once on a fresh worker, replace it. */
  function kill(slot: Slot, reason: string): void {
    if (slot.dead) return;
    slot.dead = true;
    clock.clearTimeout(slot.timer);
    clock.clearTimeout(slot.probeTimer);
    slot.lockAbort?.abort();
    slots.splice(slots.indexOf(slot), 1);
    try {
      slot.api[Comlink.releaseProxy]();
    } catch {
      // already released
    }
    slot.worker.terminate();
    if (closed) return;
    const orphans: Call[] = [];
    for (const call of slot.calls.values()) {
      call.slot = undefined;
      if (call.attempts >= 2) {
        settle(call, false, new WorkerCrashedError(call.index, reason));
      } else {
        counters.retries++;
        orphans.push(call);
      }
    }
    slot.calls.clear();
    for (const call of slot.reserved) orphans.push(call);
    orphans.sort((a, b) => a.id - b.id);
    onCrash?.({ workerId: slot.id, reason, indices: orphans.map((c) => c.index) });
    if (slot.ready) {
      counters.crashes++;
      if (broken === undefined) spawn(orphans);
      else breakPool(broken, orphans);
    } else {
      startFailed(reason, orphans);
    }
    pump();
  }

  function send(call: Call, slot: Slot): void {
    call.attempts++;
    clock.clearTimeout(call.timer);
    call.timer = clock.setTimeout(() => onTimeout(call, slot), callTimeoutMs);
    call.slot = slot;
    slot.calls.set(call.id, call);
    if (!useLocks) scheduleHeartbeat(slot);
    slot.api.load(call.id, call.index).then(
      (reply: LoadReply<unknown>) => {
        if (call.slot !== slot) return;
        if (reply.ok) settle(call, true, reply.value);
        else settle(call, false, new WorkerLoadError(call.index, reply.error));
        pump();
      },
      (error: unknown) => {
        if (call.slot !== slot) return;
        settle(call, false, new WorkerLoadError(call.index, serializeError(error)));
        pump();
      },
    );
  }

  function onTimeout(call: Call, slot: Slot): void {
    if (call.done || call.slot !== slot) return;
    counters.timeouts++;
    withdraw(call);
    settle(call, false, new LoadTimeoutError(call.index, callTimeoutMs));
    probe(slot, `unresponsive after sample ${call.index} timed out`);
    pump();
  }

  /** FIFO: the oldest waiting call goes to the ready worker with the fewest calls. */
  function pump(): void {
    while (queue.length > 0) {
      const head = queue[0] as Call;
      if (head.done) {
        queue.shift();
        continue;
      }
      let best: Slot | undefined;
      for (const slot of slots) {
        if (!slot.ready || slot.calls.size >= concurrency) continue;
        if (best === undefined || slot.calls.size < best.calls.size) best = slot;
      }
      if (best === undefined) return;
      queue.shift();
      send(head, best);
    }
  }

  /** Ping `slot`; declare it dead when the answer takes longer than `heartbeatMs`. */
  function probe(slot: Slot, why: string): void {
    if (slot.dead || slot.probeTimer !== undefined) return;
    slot.probeTimer = clock.setTimeout(() => kill(slot, why), heartbeatMs);
    slot.api.ping().then(
      () => {
        clock.clearTimeout(slot.probeTimer);
        slot.probeTimer = undefined;
      },
      () => {},
    );
  }

  function scheduleHeartbeat(slot: Slot): void {
    if (slot.timer !== undefined) return;
    slot.timer = clock.setTimeout(() => {
      slot.timer = undefined;
      if (slot.dead || slot.calls.size === 0) return;
      probe(slot, `no heartbeat within ${heartbeatMs} ms`);
      scheduleHeartbeat(slot);
    }, heartbeatMs);
  }

  function run(index: number, signal?: AbortSignalLike): Promise<T> {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
      return Promise.reject(
        new RangeError(`index must be a non-negative integer, got ${String(index)}`),
      );
    }
    if (closed) return Promise.reject(new ClosedError('WorkerExecutor'));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new AbortError());
    if (broken !== undefined) return Promise.reject(new WorkerCrashedError(index, broken));
    return new Promise<T>((resolve, reject) => {
      const call: Call = {
        id: ++callSeq,
        index,
        resolve: resolve as (value: unknown) => void,
        reject,
        signal,
        onAbort: undefined,
        timer: undefined,
        attempts: 0,
        slot: undefined,
        done: false,
      };
      if (signal) {
        call.onAbort = () => {
          withdraw(call);
          settle(call, false, signal.reason ?? new AbortError());
          pump();
        };
        signal.addEventListener('abort', call.onAbort, { once: true });
      }
      queue.push(call);
      pump();
    });
  }

  for (let i = 0; i < numWorkers; i++) spawn();

  return {
    run,
    stats: () => {
      let inFlight = 0;
      let readyWorkers = 0;
      for (const slot of slots) {
        inFlight += slot.calls.size;
        if (slot.ready) readyWorkers++;
      }
      let queued = 0;
      for (const call of queue) if (!call.done) queued++;
      for (const slot of slots) queued += slot.reserved.length;
      return { liveWorkers: slots.length, readyWorkers, inFlight, queued, ...counters };
    },
    async close() {
      if (closed) return;
      closed = true;
      const pending: Call[] = queue.splice(0);
      for (const slot of [...slots]) {
        pending.push(...slot.calls.values(), ...slot.reserved);
        kill(slot, 'closed');
      }
      for (const call of pending) settle(call, false, new ClosedError('WorkerExecutor'));
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function intOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number')
    throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function msOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number')
    throw new TypeError(`${name} must be a finite positive number, got ${String(value)}`);
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a finite positive number, got ${String(value)}`);
  }
  return value;
}
