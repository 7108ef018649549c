import { registerErrorClass } from '../errorRegistry.js';
import { MedFusionError } from '../errors.js';

/** Throw the signal's reason when it is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** The error to reject with when `signal` aborts. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new AbortError();
}

/** Thrown (or used as the reason) when an operation is aborted without a reason. Code `ABORTED`. */
export class AbortError extends MedFusionError {
  /** Stable code to branch on, also across worker boundaries. */
  declare readonly code: 'ABORTED';
  constructor(message = 'The operation was aborted') {
    super('ABORTED', message);
    this.name = 'AbortError';
  }
}
registerErrorClass('AbortError', AbortError);

/**
 * Settle with `promise`, or reject with the signal's reason as soon as
 * `signal` aborts (the work behind `promise` is not stopped by this; the
 * caller just stops waiting for it).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
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
