import type { Speculation, TimerHandle } from '@medfusion/core';
import type * as Comlink from 'comlink';
import type { WorkerApi } from './workerProtocol.js';

/** One `run` call, from its queueing to its settling. */
export interface PendingCall {
  readonly id: number;
  readonly index: number;
  /** The payload handed to the worker with the index (e.g. a sample to augment). */
  readonly input: unknown;
  /** Set for a speculative call (a prefetch): it starts after queued demand calls until promoted. */
  readonly speculation: Speculation | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  timer: TimerHandle;
  attempts: number;
  slot: WorkerSlot | undefined;
  done: boolean;
}

/** One Web Worker of the pool and the calls it holds. */
export interface WorkerSlot {
  readonly id: number;
  readonly worker: Worker;
  /** The root comlink proxy, held strongly and released in `kill`. */
  readonly api: Comlink.Remote<WorkerApi>;
  /** Method proxies made once per worker (each property read makes a new comlink proxy). */
  readonly load: Comlink.Remote<WorkerApi>['load'];
  readonly abort: Comlink.Remote<WorkerApi>['abort'];
  readonly ping: Comlink.Remote<WorkerApi>['ping'];
  ready: boolean;
  dead: boolean;
  readonly calls: Map<number, PendingCall>;
  /** Orphans of a dead worker, sent here first once this worker is ready. */
  readonly reserved: PendingCall[];
  readonly lockAbort: AbortController | undefined;
  timer: TimerHandle | undefined;
  /** Pending ping's deadline timer, when a probe is out. */
  probeTimer: TimerHandle | undefined;
}

/** True for an object with a Worker's `postMessage`, `terminate` and `addEventListener`. */
export function isWorkerLike(value: unknown): value is Worker {
  const w = value as Partial<Worker> | null;
  return (
    typeof w === 'object' &&
    w !== null &&
    typeof w.postMessage === 'function' &&
    typeof w.terminate === 'function' &&
    typeof w.addEventListener === 'function'
  );
}
