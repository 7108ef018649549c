import { ClosedError, type PersistentStore, type StoreValue } from '@medfusion/core';
import { checkStoreKey } from '@medfusion/core/internal';
import { chunkRange, isMeta, type Meta } from './idbMeta.js';
import type { IdbStoreUsage } from './idbStoreOptions.js';
import { IdbStoreWrites } from './idbStoreWrites.js';

/**
 * A {@link PersistentStore} in IndexedDB (via `idb`), for browsers without
 * OPFS. Large values are split into chunk records; writes issued together
 * commit in one transaction, whose body awaits nothing but its own
 * requests, and reads issued together share one read-only transaction;
 * each value's length and checksum are verified on read.
 *
 * @example
 * const store = new IdbStore({ name: 'medfusion-xray', maxBytes: 2 ** 30 });
 * await store.put('xray@1/0', bytes);
 * await store.get('xray@1/0');
 */
export class IdbStore extends IdbStoreWrites implements PersistentStore {
  /** The bytes stored under `key`, or undefined when absent or corrupt. */
  async get(key: string): Promise<StoreValue | undefined> {
    checkStoreKey(key);
    if (this.closed) throw new ClosedError('IdbStore');
    // One request, as a plain key-value store makes: a one-chunk value whose
    // length and checksum this store knows (known only once the database is
    // open). Anything else (another tab changed it, it is gone, it is damaged)
    // takes the full read below.
    const len = this.lru.get(key);
    const sum = this.sums.get(key);
    const vc = this.valueChecksum;
    if (
      len !== undefined &&
      this.retention.maxAge !== undefined &&
      this.expiredAt(this.ats.get(key))
    ) {
      // Older than maxAge: a miss, and deleted.
      this.counters.expired++;
      await this.write(key, undefined).catch(() => {});
      return undefined;
    }
    if (this.raw && vc && len !== undefined && sum !== undefined && len <= this.chunkBytes) {
      const v = await this.readChunk(this.raw, key);
      // A sealed value's tag authenticates it: no checksum on top.
      if (v instanceof Uint8Array && v.length === len && (this.cipher || vc.matches(v, sum))) {
        const plain = this.cipher ? await this.unseal(key, v, false) : v;
        if (plain === null) return undefined; // dropped (rotation: 'drop')
        if (plain) {
          this.lru.delete(key);
          this.lru.set(key, len);
          return plain;
        }
      }
    }
    const db = await this.open();
    // Both requests in one round trip: the entry's meta and all its chunks.
    const tx = db.transaction(['meta', 'data']);
    const [meta, parts] = await Promise.all([
      tx.objectStore('meta').get(key),
      tx.objectStore('data').getAll(chunkRange(key)),
    ]);
    if (meta === undefined) {
      this.dropKnown(key);
      return undefined;
    }
    // The meta record is untrusted until checked, and nothing is allocated for its claimed
    // length: the chunks' real bytes are counted first and must match it.
    let stored = 0;
    let whole = isMeta(meta, this.maxBytes) && parts.length === meta.chunks;
    for (const p of parts) {
      if (!(p instanceof Uint8Array)) whole = false;
      else stored += p.length;
    }
    let out: Uint8Array = new Uint8Array(0);
    if (whole && stored === (meta as Meta).len) {
      if (parts.length === 1) out = parts[0] as Uint8Array;
      else {
        out = new Uint8Array(stored);
        let at = 0;
        for (const p of parts) {
          out.set(p, at);
          at += p.length;
        }
      }
    }
    // An entry sealed with xxHash64 where this store cannot compute it is dropped too. A sealed
    // value carries no checksum: its GCM tag authenticates it when it is opened.
    if (
      !whole ||
      out.length !== meta.len ||
      (meta.enc !== 1 && !this.valueChecksum!.matches(out, meta.sum))
    ) {
      this.counters.corruptDropped++;
      await this.write(key, undefined).catch(() => {});
      return undefined;
    }
    if (this.expiredAt(meta.at)) {
      this.counters.expired++;
      await this.write(key, undefined).catch(() => {});
      return undefined;
    }
    if (this.cipher && meta.enc !== 1) {
      // Plaintext where the app asked for encryption: never returned.
      this.counters.plainDropped++;
      await this.write(key, undefined).catch(() => {});
      return undefined;
    }
    if (!this.cipher && meta.enc === 1) {
      // Sealed (by another store instance given a key): not readable here, never returned.
      return undefined;
    }
    this.ats.set(key, meta.at);
    const value = this.cipher ? await this.unseal(key, out, true) : out;
    if (!value) return undefined;
    // touch: most recently used now
    this.lru.delete(key);
    this.lru.set(key, meta.len);
    this.sums.set(key, meta.sum);
    this.ats.set(key, meta.at);
    return value;
  }

  /**
   * Open the sealed value of `key`; as `rotation` says for one sealed with a
   * previous key (null: dropped, a miss). With `final`, a value no key opens
   * is dropped and counted; without, undefined: the caller reads it again the
   * full way.
   */
  private async unseal(
    key: string,
    sealed: Uint8Array,
    final: boolean,
  ): Promise<Uint8Array | undefined | null> {
    const { value, keyIndex } = await this.cipher!.open(key, sealed);
    if (value === undefined) {
      if (final) {
        this.counters.undecryptable++;
        await this.write(key, undefined).catch(() => {});
      }
      return undefined;
    }
    if (keyIndex > 0) {
      if (this.cipher!.settings.rotation === 'drop') {
        this.counters.previousKeyDropped++;
        await this.write(key, undefined).catch(() => {});
        return null;
      }
      this.counters.reencrypted++;
      // Lazily, behind the read, keeping its write time (re-encrypting does not make a
      // record younger for maxAge); a failure leaves the old record, read again next time.
      const at = this.ats.get(key);
      const reseal = this.cipher!.seal(key, value)
        .then((resealed) => this.write(key, resealed, true, at))
        .catch(() => {})
        .finally(() => this.reseals.delete(reseal));
      this.reseals.add(reseal);
    }
    return value;
  }

  /**
   * The first chunk of `key`. Reads issued together (in one turn of the event
   * loop) share one read-only transaction: a transaction costs IndexedDB more
   * than a request does.
   */
  private readChunk(db: IDBDatabase, key: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.reads.push({ key, resolve, reject });
      if (this.reads.length === 1) queueMicrotask(() => this.sendReads(db));
    });
  }

  private sendReads(db: IDBDatabase): void {
    const batch = this.reads;
    this.reads = [];
    try {
      const data = db.transaction('data').objectStore('data');
      for (const r of batch) {
        const req = data.get([r.key, 0]);
        req.onsuccess = () => r.resolve(req.result);
        req.onerror = () => r.reject(req.error);
      }
    } catch (err) {
      for (const r of batch) r.reject(err);
    }
  }

  /** Whether `key` is stored. */
  async has(key: string): Promise<boolean> {
    checkStoreKey(key);
    const db = await this.open();
    return (await db.count('meta', key)) > 0;
  }

  /** Every stored key. */
  async keys(): Promise<string[]> {
    const db = await this.open();
    return db.getAllKeys('meta');
  }

  /** Remove everything. */
  async clear(): Promise<void> {
    const db = await this.open();
    await this.writing;
    const tx = db.transaction(['meta', 'data'], 'readwrite');
    await Promise.all([tx.objectStore('meta').clear(), tx.objectStore('data').clear(), tx.done]);
    this.lru.clear();
    this.sums.clear();
    this.ats.clear();
    this.bytes = 0;
  }

  /**
   * Delete every record of the data set `fingerprint` (keys
   * `<fingerprint>/…`) for real: meta and chunk records, in one
   * transaction. Resolves with how many entries went; a fingerprint with no
   * record is a no-op (0). Another store instance (tab) on the database reads
   * them as misses from then on.
   */
  async forget(fingerprint: string): Promise<number> {
    checkStoreKey(fingerprint, 'fingerprint');
    const db = await this.open();
    while (this.writing) await this.writing;
    const prefix = `${fingerprint}/`;
    const metaRange = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
    const tx = db.transaction(['meta', 'data'], 'readwrite');
    const [keys] = await Promise.all([
      tx.objectStore('meta').getAllKeys(metaRange),
      tx.objectStore('meta').delete(metaRange),
      tx
        .objectStore('data')
        .delete(IDBKeyRange.bound([prefix, 0], [`${prefix}\uffff`, Number.MAX_SAFE_INTEGER])),
      tx.done,
    ]);
    for (const k of keys) this.dropKnown(k);
    return keys.length;
  }

  /** Delete every record of every data set for real (as {@link clear}); resolves with how many went. */
  async forgetAll(): Promise<number> {
    const n = (await this.keys()).length;
    await this.clear();
    return n;
  }

  /** Bytes and entries (as this store last saw them), evictions, quota errors. */
  async usage(): Promise<IdbStoreUsage> {
    await this.open();
    return {
      bytes: this.bytes,
      entries: this.lru.size,
      maxBytes: this.maxBytes,
      checksumAlgorithm: this.valueChecksum!.algorithm,
      ...this.counters,
    };
  }

  /** Finish pending writes and close the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.sweeper?.stop();
    // Puts still sealing or opening, and re-encryptions, have not reached `writing` yet.
    while (this.pending.size > 0 || this.reseals.size > 0 || this.writing) {
      await Promise.allSettled([...this.pending, ...this.reseals, this.writing]);
    }
    const db = this.db;
    this.closed = true;
    if (db) (await db.catch(() => undefined))?.close();
  }
}
