import { ClosedError, isQuotaError, type PersistentStore, type StoreValue } from '@medfusion/core';
import {
  bool,
  checkStoreKey,
  checkStoreValue,
  object,
  positiveBytes,
} from '@medfusion/core/internal';
import { type IDBPDatabase, openDB, unwrap } from 'idb';
import { checkEncryptionOptions } from './encryption/encryptionOptions.js';
import { RecordCipher } from './encryption/RecordCipher.js';
import { chunkRange, type IdbSchema, isMeta, type Meta } from './idbMeta.js';
import type { IdbStoreOptions, IdbStoreUsage } from './idbStoreOptions.js';
import {
  checkRetentionOptions,
  type RetentionSettings,
  SweepTimer,
  sweepInterval,
} from './retention/retentionOptions.js';
import { StoreError } from './storeErrors.js';
import { ValueChecksum } from './ValueChecksum.js';

interface PendingRead {
  key: string;
  /** Whatever the record holds: checked by the caller. */
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface PendingWrite {
  key: string;
  value: Uint8Array | undefined;
  /** Whether `value` is sealed (RecordCipher). */
  enc: boolean;
  /** Write time to record (a re-encrypted value keeps its own); undefined: now. */
  at: number | undefined;
  resolve: (had: boolean) => void;
  reject: (e: unknown) => void;
}

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
export class IdbStore implements PersistentStore {
  /** Database name. */
  readonly name: string;
  /** Byte budget. */
  readonly maxBytes: number;
  private readonly chunkBytes: number;
  private readonly quotaBytes: number | undefined;
  private readonly webAssembly: boolean;
  /** Seals and checks values; loaded when the database opens, before any read or write. */
  private valueChecksum: ValueChecksum | undefined;
  private db: Promise<IDBPDatabase<IdbSchema>> | undefined;
  /**
   * The open database without `idb`'s wrappers, for the one-request read path:
   * a 150 KB get is bound by the page thread's work, and the wrappers' promise
   * layers cost it 10–20 % of idb-keyval's rate in `pnpm bench store`.
   */
  private raw: IDBDatabase | undefined;
  /** key → length, in least-recently-used-first order. */
  private readonly lru = new Map<string, number>();
  /** key → checksum of the value as last written or read here (the one-request read path). */
  private readonly sums = new Map<string, number>();
  private bytes = 0;
  private seq = 0;
  private closed = false;
  private writes: PendingWrite[] = [];
  private reads: PendingRead[] = [];
  private writing: Promise<void> | undefined;
  /** Re-encryptions under the current key still running (see unseal), awaited by close(). */
  private readonly reseals = new Set<Promise<void>>();
  private counters = {
    evictions: 0,
    corruptDropped: 0,
    quotaErrors: 0,
    undecryptable: 0,
    reencrypted: 0,
    previousKeyDropped: 0,
    plainDropped: 0,
    expired: 0,
  };
  /** maxAge and the clock. */
  private readonly retention: RetentionSettings;
  /** key → write time (ms; undefined for records written before write times were kept). */
  private readonly ats = new Map<string, number | undefined>();
  private sweeper: SweepTimer | undefined;
  /** Seals and opens values when `encryptionKey` was given. */
  private readonly cipher: RecordCipher | undefined;

  constructor(options: IdbStoreOptions) {
    object('options', options, 'an object with a name');
    checkStoreKey(options.name, 'name');
    this.name = options.name;
    this.maxBytes = positiveBytes('maxBytes', options.maxBytes ?? 2 ** 30);
    this.chunkBytes = positiveBytes('chunkBytes', options.chunkBytes ?? 2 ** 20);
    this.quotaBytes =
      options.quotaBytes === undefined
        ? undefined
        : positiveBytes('quotaBytes', options.quotaBytes);
    this.webAssembly = bool('webAssembly', options.webAssembly ?? true);
    const enc = checkEncryptionOptions(options);
    this.cipher = enc ? new RecordCipher(enc) : undefined;
    this.retention = checkRetentionOptions(options);
  }

  /** Whether a record written at `at` is older than maxAge now. */
  private expiredAt(at: number | undefined): boolean {
    const { maxAge, clock } = this.retention;
    if (maxAge === undefined) return false;
    return at === undefined || !(clock.now() - at <= maxAge);
  }

  /** Delete every record older than maxAge (on open, then every sweep interval). */
  private async sweep(): Promise<void> {
    const old: string[] = [];
    for (const [k, at] of this.ats) if (this.expiredAt(at)) old.push(k);
    if (old.length === 0) return;
    this.counters.expired += old.length;
    await Promise.all(old.map((k) => this.write(k, undefined)));
  }

  /** True where IndexedDB exists. */
  static isSupported(): boolean {
    return typeof indexedDB !== 'undefined';
  }

  private open(): Promise<IDBPDatabase<IdbSchema>> {
    if (this.closed) return Promise.reject(new ClosedError('IdbStore'));
    this.db ??= (async () => {
      if (!IdbStore.isSupported())
        throw new StoreError('STORE_UNAVAILABLE', 'IndexedDB is not available here');
      this.valueChecksum ??= await ValueChecksum.load(this.webAssembly);
      const db = await openDB<IdbSchema>(this.name, 1, {
        upgrade(d) {
          d.createObjectStore('meta');
          d.createObjectStore('data');
        },
        // Another tab deletes or upgrades the database: let it, reopen on next use.
        blocking: () => {
          db.close();
          this.db = undefined;
          this.raw = undefined;
          this.lru.clear();
          this.sums.clear();
          this.bytes = 0;
        },
        terminated: () => {
          this.db = undefined;
          this.raw = undefined;
        },
      });
      const tx = db.transaction('meta');
      const [keys, metas] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
      // A damaged record (null, NaN, a string…) is skipped and counted, never trusted: it
      // would make the byte count NaN, and the next put would evict every intact entry.
      const order: { k: string; m: Meta }[] = [];
      const damaged: IDBValidKey[] = [];
      const plain: IDBValidKey[] = [];
      const expired: IDBValidKey[] = [];
      keys.forEach((k, i) => {
        const m: unknown = metas[i];
        if (typeof k !== 'string' || !isMeta(m, this.maxBytes)) damaged.push(k);
        else if (this.expiredAt(m.at)) expired.push(k);
        else if (this.cipher && m.enc !== 1) plain.push(k);
        else order.push({ k, m });
      });
      if (expired.length > 0) {
        this.counters.expired += expired.length;
        await this.removeDamaged(db, expired);
      }
      if (!this.cipher && order.some(({ m }) => m.enc === 1)) {
        db.close();
        throw new StoreError(
          'ENCRYPTION_KEY_REQUIRED',
          `the IndexedDB store ${JSON.stringify(this.name)} holds encrypted records: open it with its encryptionKey`,
        );
      }
      // Given a key, no plaintext is kept: plain records are dropped (misses).
      if (plain.length > 0) {
        this.counters.plainDropped += plain.length;
        await this.removeDamaged(db, plain).catch(() => {});
      }
      order.sort((a, b) => a.m.seq - b.m.seq);
      for (const { k, m } of order) {
        this.lru.set(k, m.len);
        this.sums.set(k, m.sum);
        this.ats.set(k, m.at);
        this.bytes += m.len;
        this.seq = Math.max(this.seq, m.seq);
      }
      if (damaged.length > 0) {
        this.counters.corruptDropped += damaged.length;
        await this.removeDamaged(db, damaged).catch(() => {});
      }
      this.raw = unwrap(db);
      const { maxAge, clock } = this.retention;
      if (maxAge !== undefined && !this.sweeper) {
        this.sweeper = new SweepTimer(clock, sweepInterval(maxAge), () => this.sweep());
        this.sweeper.start();
      }
      return db;
    })();
    return this.db;
  }

  /** Delete damaged meta records and their chunks (best effort: they are skipped anyway). */
  private async removeDamaged(db: IDBPDatabase<IdbSchema>, keys: IDBValidKey[]): Promise<void> {
    const tx = db.transaction(['meta', 'data'], 'readwrite');
    const reqs: Promise<unknown>[] = [tx.done];
    for (const k of keys) {
      reqs.push(tx.objectStore('meta').delete(k as string));
      if (typeof k === 'string') {
        reqs.push(tx.objectStore('data').delete(chunkRange(k)));
      }
    }
    await Promise.all(reqs);
  }

  private dropKnown(key: string): void {
    const len = this.lru.get(key);
    if (len === undefined) return;
    this.lru.delete(key);
    this.sums.delete(key);
    this.ats.delete(key);
    this.bytes -= len;
  }

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
    // An entry sealed with xxHash64 where this store cannot compute it is dropped too.
    if (!whole || out.length !== meta.len || !this.valueChecksum!.matches(out, meta.sum)) {
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
        .then(async (resealed) => {
          await this.write(key, resealed, true, at);
        })
        .catch(() => {});
      // close() waits for it: its write starts only once the seal is done (Firefox's
      // crypto.subtle took long enough that close() ran first and the write was lost).
      this.reseals.add(reseal);
      void reseal.finally(() => this.reseals.delete(reseal));
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

  /** Store `value` under `key`; writes issued together commit in one transaction. */
  async put(key: string, value: StoreValue): Promise<void> {
    checkStoreKey(key);
    checkStoreValue(value);
    // Puts issued together are sealed together and resume together: one transaction still.
    const stored = this.cipher ? await this.cipher.sealInTurn(key, value) : value;
    if (stored.byteLength > this.maxBytes) {
      throw new StoreError(
        'ENTRY_TOO_LARGE',
        `value for key ${JSON.stringify(key)} is ${stored.byteLength} bytes${this.cipher ? ' sealed' : ''}, more than maxBytes ${this.maxBytes}`,
      );
    }
    await this.write(key, stored, this.cipher !== undefined);
  }

  /** Remove `key`; true when it was present. */
  async delete(key: string): Promise<boolean> {
    checkStoreKey(key);
    return this.write(key, undefined);
  }

  private async write(
    key: string,
    value: Uint8Array | undefined,
    enc = false,
    at?: number,
  ): Promise<boolean> {
    await this.open();
    return new Promise<boolean>((resolve, reject) => {
      this.writes.push({ key, value, enc, at, resolve, reject });
      this.writing ??= Promise.resolve().then(() => this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.writes.length > 0) {
      const batch = this.writes;
      this.writes = [];
      try {
        const had = await this.commit(batch);
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(had[i]!);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.writing = undefined;
  }

  /** One transaction for the whole batch, evicting first; on quota errors evict more and retry once. */
  private async commit(batch: PendingWrite[]): Promise<boolean[]> {
    const db = await this.open();
    // Everything computed before the transaction: chunks and checksums.
    const prepared = batch.map((w) => {
      if (!w.value) return { key: w.key, meta: undefined, chunks: [] as Uint8Array[] };
      const chunks: Uint8Array[] = [];
      const v = w.value;
      if (
        v.byteLength <= this.chunkBytes &&
        v.byteOffset === 0 &&
        v.byteLength === v.buffer.byteLength &&
        v.buffer instanceof ArrayBuffer
      ) {
        // One chunk that is its whole (plain) buffer: IndexedDB's clone is the one copy.
        chunks.push(v);
      } else {
        // A view clones its whole buffer: copy out exactly the chunk.
        for (let at = 0; at < v.byteLength || chunks.length === 0; at += this.chunkBytes) {
          chunks.push(v.slice(at, at + this.chunkBytes));
        }
      }
      const meta: Meta = {
        len: w.value.byteLength,
        sum: this.valueChecksum!.of(w.value),
        chunks: chunks.length,
        seq: 0,
        ...(w.enc ? { enc: 1 as const } : {}),
        at: w.at ?? this.retention.clock.now(),
      };
      return { key: w.key, meta, chunks };
    });
    let incoming = 0;
    for (const p of prepared) if (p.meta) incoming += p.meta.len - (this.lru.get(p.key) ?? 0);
    for (let attempt = 0; ; attempt++) {
      // First try: stay under maxBytes. After a quota error: also free room for the batch.
      const target =
        attempt === 0 ? this.maxBytes : Math.max(0, Math.min(this.maxBytes, this.bytes) - incoming);
      const victims = this.pickVictims(incoming, target, new Set(prepared.map((p) => p.key)));
      try {
        if (
          this.quotaBytes !== undefined &&
          this.bytesAfter(victims) + incoming > this.quotaBytes
        ) {
          throw new DOMException('simulated quota exceeded', 'QuotaExceededError');
        }
        const had = prepared.map((p) => this.lru.has(p.key));
        const tx = db.transaction(['meta', 'data'], 'readwrite');
        const metaStore = tx.objectStore('meta');
        const dataStore = tx.objectStore('data');
        const reqs: Promise<unknown>[] = [];
        for (const v of victims) {
          reqs.push(metaStore.delete(v), dataStore.delete(chunkRange(v)));
        }
        for (const p of prepared) {
          reqs.push(dataStore.delete(chunkRange(p.key)));
          if (!p.meta) {
            reqs.push(metaStore.delete(p.key));
            continue;
          }
          p.meta.seq = ++this.seq;
          reqs.push(metaStore.put(p.meta, p.key));
          for (let i = 0; i < p.chunks.length; i++)
            reqs.push(dataStore.put(p.chunks[i]!, [p.key, i]));
        }
        await Promise.all([...reqs, tx.done]);
        for (const v of victims) {
          this.dropKnown(v);
          this.counters.evictions++;
        }
        for (const p of prepared) {
          this.dropKnown(p.key);
          if (p.meta) {
            this.lru.set(p.key, p.meta.len);
            this.sums.set(p.key, p.meta.sum);
            this.ats.set(p.key, p.meta.at);
            this.bytes += p.meta.len;
          }
        }
        return had;
      } catch (err) {
        if (!isQuotaError(err))
          throw new StoreError('STORE_FAILED', `IndexedDB write failed: ${String(err)}`, {
            cause: err,
          });
        this.counters.quotaErrors++;
        if (attempt >= 1) {
          throw new StoreError('QUOTA_EXCEEDED', 'storage quota exceeded, even after evicting', {
            cause: err,
          });
        }
      }
    }
  }

  private bytesAfter(victims: string[]): number {
    let b = this.bytes;
    for (const v of victims) b -= this.lru.get(v) ?? 0;
    return b;
  }

  /** Least recently used keys to drop so `incoming` more bytes fit under `target`. */
  private pickVictims(incoming: number, target: number, keep: Set<string>): string[] {
    const victims: string[] = [];
    let b = this.bytes;
    for (const [k, len] of this.lru) {
      if (b + incoming <= target) break;
      if (keep.has(k)) continue;
      victims.push(k);
      b -= len;
    }
    return victims;
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
    const db = this.db;
    while (this.reseals.size > 0) await Promise.all(this.reseals);
    while (this.writing) await this.writing;
    this.closed = true;
    if (db) (await db.catch(() => undefined))?.close();
  }
}
