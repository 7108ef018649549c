/**
 * The private RPC surface between {@link createWorkerExecutor} (page side) and
 * {@link exposeLoader} (worker side), carried by comlink. Not exported from the
 * package: both ends ship together, so they always agree.
 */

/** Bumped whenever the shape below changes; `init` returns it. */
export const PROTOCOL_VERSION = 1;

/** A loader error flattened to what survives `postMessage`. */
export interface SerializedError {
  /** The original `error.name` (e.g. `TypeError`, or a custom class name). */
  name: string;
  /** The original message. */
  message: string;
  /** The stack as captured in the worker, when there was one. */
  stack?: string;
  /** The original `error.code`, when it was a string or a number. */
  code?: string;
}

/** What one `load` call answers: the sample, or the loader's error. */
export type LoadReply<T> = { ok: true; value: T } | { ok: false; error: SerializedError };

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

/** Turn anything thrown into a {@link SerializedError}. */
export function serializeError(error: unknown): SerializedError {
  if (error !== null && typeof error === 'object') {
    const e = error as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown };
    const out: SerializedError = {
      name: typeof e.name === 'string' && e.name ? e.name : 'Error',
      message: typeof e.message === 'string' ? e.message : String(error),
    };
    if (typeof e.stack === 'string') out.stack = e.stack;
    if (typeof e.code === 'string' || typeof e.code === 'number') out.code = String(e.code);
    return out;
  }
  return { name: 'Error', message: String(error) };
}
