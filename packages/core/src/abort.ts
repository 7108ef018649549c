/**
 * The subset of `AbortSignal` that core relies on. Core compiles without DOM
 * types, so it names the shape it needs; the platform's `AbortSignal`
 * (browsers, workers, Node) satisfies it.
 */
export interface AbortSignalLike {
  /** True once the operation was aborted. */
  readonly aborted: boolean;
  /** Why it was aborted (usually a DOMException named `AbortError`). */
  readonly reason?: unknown;
  /** Subscribe to the `abort` event. */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  /** Unsubscribe from the `abort` event. */
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The subset of `AbortController` that core relies on. */
export interface AbortControllerLike {
  /** The signal this controller aborts. */
  readonly signal: AbortSignalLike;
  /** Abort the signal with an optional reason. */
  abort(reason?: unknown): void;
}

interface AbortGlobals {
  AbortController: new () => AbortControllerLike;
}

/** Create a platform `AbortController` (present in every runtime core targets). */
export function createAbortController(): AbortControllerLike {
  return new (globalThis as unknown as AbortGlobals).AbortController();
}

/** Throw the signal's reason when it is already aborted. */
export function throwIfAborted(signal: AbortSignalLike | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** The error to reject with when `signal` aborts. */
export function abortReason(signal: AbortSignalLike): unknown {
  return signal.reason ?? new AbortError();
}

/** Thrown (or used as the reason) when an operation is aborted without a reason. */
export class AbortError extends Error {
  override readonly name = 'AbortError';
  /** Stable code to branch on, also across worker boundaries. */
  readonly code = 'ABORTED';
  constructor(message = 'The operation was aborted') {
    super(message);
  }
}

/**
 * Settle with `promise`, or reject with the signal's reason as soon as
 * `signal` aborts (the work behind `promise` is not stopped by this; the
 * caller just stops waiting for it).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignalLike | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
