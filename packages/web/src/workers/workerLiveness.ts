/**
 * Learning that a worker died, through Web Locks: the worker takes a lock and
 * never gives it back; the page asks for the same lock, which it is granted
 * the moment the worker is gone (terminated, crashed, or a silent
 * `self.close()`). Used by the loader pool and the OPFS store. Internal.
 */

/** Worker side: take the Web Lock `name` and hold it until this worker dies. */
export function holdLockForever(name: string): Promise<void> {
  return new Promise<void>((granted, failed) => {
    navigator.locks
      .request(name, () => {
        granted();
        return new Promise<never>(() => {});
      })
      .catch(failed);
  });
}

/**
 * Page side: call `onGone` once the holder of `name` is gone. Aborting
 * `signal` stops watching (do it before terminating the worker on purpose).
 */
export function watchLock(name: string, signal: AbortSignal, onGone: () => void): void {
  navigator.locks.request(name, { signal }, () => onGone()).catch(() => {});
}
