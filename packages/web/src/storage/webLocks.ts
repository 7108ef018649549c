/**
 * Run `fn` while holding the exclusive Web Lock `name` (navigator.locks), so
 * writers in other tabs, workers and stores on the same origin wait their
 * turn. Where the Web Locks API is missing it falls back to a lock shared
 * only within this JavaScript realm.
 *
 * @example
 * await withWebLock('medfusion-opfs:cache', async () => {
 *   // write: other tabs, workers and stores wait
 * });
 */
export async function withWebLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as { locks?: LockManager } | undefined)?.locks;
  if (locks && typeof locks.request === 'function') {
    return locks.request(name, { mode: 'exclusive' }, () => fn()) as Promise<T>;
  }
  return localLock(name, fn);
}

const tails = new Map<string, Promise<unknown>>();

async function localLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const prev = tails.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => {
    release = r;
  });
  const tail = prev.then(() => mine);
  tails.set(name, tail);
  await prev.catch(() => {});
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(name) === tail) tails.delete(name);
  }
}
