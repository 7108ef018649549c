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

/** The calls waiting for one signal to abort, and the one listener that runs them. */
interface Watchers {
  readonly listener: () => void;
  readonly calls: Set<() => void>;
}

const watched = new WeakMap<AbortSignal, Watchers>();

/**
 * Call `fn` once when `signal` aborts (at once when it already has); returns
 * the function that stops watching, to call when the work settles. Every
 * watcher of a signal shares one `'abort'` listener, added with the first and
 * removed with the last: a signal shared by many requests or loads (a loader's,
 * a page's) holds one listener however many are in flight, none once they have
 * settled, so Node never warns `MaxListenersExceededWarning` about it.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => {};
  }
  let w = watched.get(signal);
  if (w === undefined) {
    const calls = new Set<() => void>();
    const listener = () => {
      watched.delete(signal);
      const due = [...calls];
      calls.clear();
      // a watcher that throws does not keep the others from running; the first error is
      // thrown from the listener afterwards, reported as any event listener's would be
      let failure: { error: unknown } | undefined;
      for (const call of due) {
        try {
          call();
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    };
    w = { listener, calls };
    watched.set(signal, w);
    signal.addEventListener('abort', listener, { once: true });
  }
  const watchers = w;
  const call = () => fn(); // one entry per watch, even for the same `fn`
  watchers.calls.add(call);
  return () => {
    if (!watchers.calls.delete(call) || watchers.calls.size > 0) return;
    if (watched.get(signal) === watchers) watched.delete(signal);
    signal.removeEventListener('abort', watchers.listener);
  };
}

/**
 * Settle with `promise`, or reject with the signal's reason as soon as
 * `signal` aborts (the work behind `promise` is not stopped by this; the
 * caller just stops waiting for it). Watches the signal with {@link onAbort}.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(abortReason(signal)));
    promise.then(
      (v) => {
        stop();
        resolve(v);
      },
      (e: unknown) => {
        stop();
        reject(e);
      },
    );
  });
}
