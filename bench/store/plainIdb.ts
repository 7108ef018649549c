// Bench only: IndexedDB with no library in between, so that every run shows how
// far a store doing exactly idb-keyval's work lands from idb-keyval (the run's
// noise band) and what IdbStore's record format costs on top of it.
import { createXXHash64, type IHasher } from 'hash-wasm';
import { type Competitor, kvCompetitor } from './competitor.js';

/** Resolve with a request's result, reject with its error. */
function settle<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Resolve once a transaction commits. */
function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/**
 * One transaction per put and one per get, as idb-keyval makes them, on plain
 * request callbacks. `format: false`: a string key and the value alone,
 * idb-keyval's work. `format: true`: IdbStore's record key `[key, 0]` and its
 * read check (xxHash64 by hash-wasm, IdbStore's default, against the digest kept
 * at put), the work of IdbStore's one-request read without its bookkeeping.
 */
export function plainIdbCompetitor(format: boolean): Competitor {
  const name = format ? 'plain-idb+format' : 'plain-idb';
  const dbName = `bench-store-${name}`;
  const key = (k: string): IDBValidKey => (format ? [k, 0] : k);
  const sums = new Map<string, number>();
  const open = indexedDB.open(dbName, 1);
  open.onupgradeneeded = () => open.result.createObjectStore('data');
  let hasher: IHasher | undefined;
  const ready = Promise.all([settle(open), createXXHash64()]).then(([db, h]) => {
    hasher = h;
    return db;
  });
  /** The low 32 bits of the value's xxHash64, as IdbStore keeps it. */
  const sum = (v: Uint8Array) => {
    const d = hasher!.init().update(v).digest('binary');
    return ((d[4]! << 24) | (d[5]! << 16) | (d[6]! << 8) | d[7]!) >>> 0;
  };
  return kvCompetitor(
    name,
    async (k, v) => {
      const db = await ready;
      if (format) sums.set(k, sum(v));
      const tx = db.transaction('data', 'readwrite');
      tx.objectStore('data').put(v, key(k));
      await committed(tx);
    },
    async (k) => {
      const db = await ready;
      const v: unknown = await settle(db.transaction('data').objectStore('data').get(key(k)));
      if (!(v instanceof Uint8Array)) return undefined;
      if (format && sum(v) !== sums.get(k)) return undefined;
      return v;
    },
    async () => {
      const db = await ready;
      const tx = db.transaction('data', 'readwrite');
      tx.objectStore('data').clear();
      await committed(tx);
    },
    async () => {
      (await ready).close();
      await settle(indexedDB.deleteDatabase(dbName));
    },
  );
}
