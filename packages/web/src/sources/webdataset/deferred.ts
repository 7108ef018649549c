/**
 * A promise with its resolve and reject: a read-ahead slot, settled when the
 * merged read covering it returns. Its rejection is handled (an unconsumed
 * prefetch failing is not an unhandled rejection).
 */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // an unconsumed prefetch failing is not an unhandled rejection
  return { promise, resolve, reject };
}
