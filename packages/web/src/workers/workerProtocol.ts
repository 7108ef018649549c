/**
 * The private RPC surface between {@link createWorkerExecutor} (page side) and
 * {@link exposeLoader} (worker side), carried by comlink. Not exported from the
 * package: both ends ship together, so they always agree.
 */

import type { LoadPhaseStats } from '@medfusion/core';
import type { SerializedError } from '@medfusion/core/internal';

/** Bumped whenever the shape below changes; `init` returns it. */
export const PROTOCOL_VERSION = 2;

/**
 * What one `load` call answers: the sample, or the loader's error (core's one
 * serializer); `phases` is the worker's cumulative load phases, when its loader reports them.
 */
export type LoadReply<T> = ({ ok: true; value: T } | { ok: false; error: SerializedError }) & {
  phases?: LoadPhaseStats | undefined;
};

/** The methods a worker made by `exposeLoader` answers. */
export interface WorkerApi {
  /**
   * Handshake. When `lockName` is given the worker takes that Web Lock and
   * holds it for its whole life, so the page learns of its death (even a
   * silent `self.close()`) the moment the lock is freed.
   */
  init(lockName: string | null): Promise<number>;
  /**
   * Run the worker's function for `index`; `callId` names the call for
   * `abort`; `input` is the call's payload, when the page sent one (e.g. the
   * sample to augment, cloned on the way).
   */
  load(callId: number, index: number, input?: unknown): Promise<LoadReply<unknown>>;
  /** Abort the worker-side signal of call `callId` (no-op when it already settled). */
  abort(callId: number): void;
  /** Liveness probe: answers at once when the worker's event loop is free. */
  ping(): number;
}
