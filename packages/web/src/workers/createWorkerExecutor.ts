// Past 400 lines on purpose (issue 48): one pool's lifecycle (spawn, handshake, calls, timeouts,
// crashes and re-homing, heartbeats, close) over state its closures share. Its parts already live
// beside it (options, protocol, load phases, locks); splitting the rest would pass that state between files.
import {
  AbortError,
  ClosedError,
  type Executor,
  type LoadPhaseStats,
  LoadTimeoutError,
  MedFusionError,
  type ReportsLoadPhases,
  type RunOptions,
} from '@medfusion/core';
import {
  describe,
  deserializeError,
  nonNegativeInt,
  type SerializedError,
  serializeError,
  takeDemandFirst,
} from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import { PoolLoadPhases } from './PoolLoadPhases.js';
import { WorkerCrashedError, WorkerLoadError } from './workerErrors.js';
import {
  resolveWorkerExecutorOptions,
  type WorkerExecutorOptions,
  type WorkerExecutorStats,
} from './workerExecutorOptions.js';
import { watchLock } from './workerLiveness.js';
import type { LoadReply, WorkerApi } from './workerProtocol.js';
import { type PendingCall as Call, isWorkerLike, type WorkerSlot as Slot } from './workerSlot.js';

/** A pool of Web Workers running a loader; an `Executor` for `PrefetchDataset`. */
export interface WorkerExecutor<T> extends Executor<T>, ReportsLoadPhases {
  /**
   * Load sample `index` in a worker; rejects (never hangs) on abort, timeout,
   * crash or close. `input`, when given, goes with the call (structured-cloned,
   * again on the retry after a crash) to the worker's function. A function
   * `input` is called for each attempt (the first send and the retry after a
   * crash) and its result is sent: use one when the payload moves buffers
   * (`Comlink.transfer`), which a second send would find detached; if it
   * throws, the call rejects with that error.
   * `options.speculation` marks a speculative call: while calls wait for a
   * worker, every demand call (no speculation, or a promoted one) starts
   * before it.
   */
  run(index: number, signal?: AbortSignal, input?: unknown, options?: RunOptions): Promise<T>;
  /** Current counters. */
  stats(): WorkerExecutorStats;
  /**
   * The workers' load phases summed (time waiting for bytes vs decoding, over the
   * live workers as threads), when their loaders report them (`exposeLoader`'s
   * `phases` option); undefined otherwise. The caching engines read it into their stats.
   */
  loadPhases(): LoadPhaseStats | undefined;
  /** Terminate every worker and reject every pending call with `ClosedError`. Idempotent. */
  close(): Promise<void>;
}

let poolSeq = 0;

/**
 * Run sample loads in a pool of Web Workers (comlink RPC), with no way to hang:
 * per-call timeouts, crash detection (Web Locks or heartbeat) with one retry on a
 * fresh worker, dispatch to the least busy worker (demand calls first, then
 * speculative ones, each in the order called), aborts that reach the
 * worker, zero-copy transfer of returned buffers. The worker side calls
 * {@link exposeLoader}.
 *
 * @example
 * const executor = createWorkerExecutor<Sample>({
 *   worker: () => new Worker(new URL('./my-loader.worker.ts', import.meta.url), { type: 'module' }),
 *   poolSize: 2, // Web Workers
 * });
 * // numWorkers: loads in flight across the pool
 * const prefetched = new PrefetchDataset(dataset, { prefetchSize: 10, numWorkers: 16, executor });
 */
export function createWorkerExecutor<T>(options: WorkerExecutorOptions): WorkerExecutor<T> {
  const {
    worker: factory,
    poolSize,
    callTimeoutMs,
    startTimeoutMs,
    concurrency,
    speculativeWorkers,
    heartbeatMs,
    maxStartFailures,
    useLocks,
    onCrash,
    clock,
  } = resolveWorkerExecutorOptions(options);
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
  const phases = new PoolLoadPhases();

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
      slot.abort(call.id).catch(() => {});
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
    if (!isWorkerLike(worker)) {
      startFailed(`the worker factory returned ${String(worker)}, not a Worker`, reserved);
      return;
    }
    const lockName = useLocks ? `${lockPrefix}-${slotSeq}` : null;
    const api = Comlink.wrap<WorkerApi>(worker);
    const slot: Slot = {
      id: slotSeq++,
      worker,
      api,
      load: api.load,
      abort: api.abort,
      ping: api.ping,
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
          watchLock(lockName, slot.lockAbort.signal, () => kill(slot, 'the worker exited'));
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
      broken = `workers failed to start ${startFailures} times in a row, last: ${reason}`;
    }
    rehome(reserved);
  }

  /**
   * Calls whose worker died go to a fresh worker; once the pool cannot start
   * workers any more, to the survivors, and when none is left they fail.
   */
  function rehome(orphans: Call[]): void {
    if (closed) return;
    if (broken === undefined) {
      spawn(orphans);
      return;
    }
    if (slots.length > 0) {
      queue.unshift(...orphans);
      return;
    }
    for (const call of [...orphans, ...queue.splice(0)]) {
      settle(call, false, new WorkerCrashedError(call.index, broken));
    }
  }

  /** Declare `slot` dead: terminate it, retry its calls once on a fresh worker, replace it. */
  function kill(slot: Slot, reason: string): void {
    if (slot.dead) return;
    slot.dead = true;
    phases.retire(slot.id);
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
    const indices: number[] = [];
    const orphans: Call[] = [];
    for (const call of slot.calls.values()) {
      indices.push(call.index);
      call.slot = undefined;
      if (call.attempts >= 2) {
        settle(call, false, new WorkerCrashedError(call.index, reason));
      } else {
        counters.retries++;
        orphans.push(call);
      }
    }
    slot.calls.clear();
    for (const call of slot.reserved) if (!call.done) orphans.push(call);
    orphans.sort((a, b) => a.id - b.id);
    try {
      onCrash?.({ workerId: slot.id, reason, indices });
    } catch {
      // a logging callback must not break recovery
    }
    if (slot.ready) {
      counters.crashes++;
      rehome(orphans);
    } else {
      startFailed(reason, orphans);
    }
    pump();
  }

  function send(call: Call, slot: Slot): void {
    let payload: unknown = call.input;
    if (typeof payload === 'function') {
      try {
        payload = (payload as () => unknown)();
      } catch (error) {
        settle(call, false, error);
        return;
      }
    }
    call.attempts++;
    clock.clearTimeout(call.timer);
    call.timer = clock.setTimeout(() => onTimeout(call, slot), callTimeoutMs);
    call.slot = slot;
    slot.calls.set(call.id, call);
    if (!useLocks) scheduleHeartbeat(slot);
    slot.load(call.id, call.index, payload).then(
      (reply: LoadReply<unknown>) => {
        if (reply.phases !== undefined && !slot.dead) phases.report(slot.id, reply.phases);
        if (call.slot !== slot) return;
        if (reply.ok) settle(call, true, reply.value);
        else settle(call, false, loaderError(call.index, reply.error));
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

  /**
   * The oldest waiting demand call (else the oldest speculative one) goes to
   * the ready worker with the fewest calls; a speculative call only to one of
   * the first `speculativeWorkers` ready workers. Speculation is read now, so
   * a call promoted while it waited counts as demand.
   */
  function pump(): void {
    while (queue.length > 0) {
      if ((queue[0] as Call).done) {
        queue.shift();
        continue;
      }
      let best: Slot | undefined;
      let bestSpeculative: Slot | undefined;
      let ready = 0;
      for (const slot of slots) {
        if (!slot.ready) continue;
        const mayGuess = ready++ < speculativeWorkers;
        if (slot.calls.size >= concurrency) continue;
        if (best === undefined || slot.calls.size < best.calls.size) best = slot;
        if (
          mayGuess &&
          (bestSpeculative === undefined || slot.calls.size < bestSpeculative.calls.size)
        )
          bestSpeculative = slot;
      }
      if (best === undefined) return;
      const call = takeDemandFirst(queue) as Call;
      if (call.done) continue; // a settled call is only dropped
      if (call.speculation?.speculative !== true) send(call, best);
      else if (bestSpeculative !== undefined) send(call, bestSpeculative);
      else {
        // no demand call waits (it would have come first): speculation waits for its workers
        queue.unshift(call);
        return;
      }
    }
  }

  /** Ping `slot`; declare it dead when the answer takes longer than `heartbeatMs`. */
  function probe(slot: Slot, why: string): void {
    if (slot.dead || slot.probeTimer !== undefined) return;
    slot.probeTimer = clock.setTimeout(() => kill(slot, why), heartbeatMs);
    slot.ping().then(
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

  function run(
    index: number,
    signal?: AbortSignal,
    input?: unknown,
    options?: RunOptions,
  ): Promise<T> {
    try {
      nonNegativeInt('index', index);
    } catch (err) {
      return Promise.reject(err);
    }
    if (closed) return Promise.reject(new ClosedError('WorkerExecutor'));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new AbortError());
    if (broken !== undefined && slots.length === 0) {
      return Promise.reject(new WorkerCrashedError(index, broken));
    }
    return new Promise<T>((resolve, reject) => {
      const call: Call = {
        id: ++callSeq,
        index,
        input,
        speculation: options?.speculation,
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

  for (let i = 0; i < poolSize; i++) spawn();

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
    loadPhases: () => phases.total(slots.length),
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

/** Ours come back as their own class (with the call's index when they had none); the rest as WorkerLoadError. */
function loaderError(index: number, remote: SerializedError): Error {
  const error = deserializeError(remote);
  if (!(error instanceof MedFusionError)) return new WorkerLoadError(index, remote);
  if (error.index === undefined) (error as { index?: number }).index = index;
  return error;
}
