import { ClosedError } from '@medfusion/core';
import {
  bool,
  checkStoreKey,
  object,
  positiveBytes,
  storeCounters,
  withDefault,
} from '@medfusion/core/internal';
import { type IDBPDatabase, openDB, unwrap } from 'idb';
import { checkEncryptionOptions } from './encryption/encryptionOptions.js';
import { RecordCipher } from './encryption/RecordCipher.js';
import { chunkRange, type IdbSchema, isMeta, type Meta } from './idbMeta.js';
import type { IdbStoreOptions } from './idbStoreOptions.js';
import {
  checkRetentionOptions,
  type RetentionSettings,
  SweepTimer,
  sweepInterval,
} from './retention/retentionOptions.js';
import { StoreError } from './storeErrors.js';
import { ValueChecksum } from './ValueChecksum.js';

/** A read waiting for its shared transaction. Internal. */
export interface PendingRead {
  key: string;
  /** Whatever the record holds: checked by the caller. */
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** A put or delete waiting for its transaction. Internal. */
export interface PendingWrite {
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
 * The state of an {@link IdbStore} and its opening: options, the database and the in-memory
 * index (LRU order, lengths, checksums, write times) rebuilt from the meta records, with the
 * damaged, expired and plain-under-a-key ones dropped on open. The writes
 * ({@link IdbStoreWrites}) and the reads ({@link IdbStore}) build on it. Internal.
 */
export abstract class IdbStoreBase {
  /** Database name. */
  readonly name: string;

  /** Byte budget. */
  readonly maxBytes: number;

  /** Largest chunk record a value is split into. */
  protected readonly chunkBytes: number;

  /** The simulated quota (tests), if any. */
  protected readonly quotaBytes: number | undefined;

  /** Whether values may be sealed with xxHash64 in WebAssembly. */
  protected readonly webAssembly: boolean;

  /** Seals and checks values; loaded when the database opens, before any read or write. */
  protected valueChecksum: ValueChecksum | undefined;

  /** The open database (idb), once opening started. */
  protected db: Promise<IDBPDatabase<IdbSchema>> | undefined;

  /**
   * The open database without `idb`'s wrappers, for the one-request read path:
   * a 150 KB get is bound by the page thread's work, and the wrappers' promise
   * layers cost it 10–20 % of idb-keyval's rate in `pnpm bench store`.
   */
  protected raw: IDBDatabase | undefined;

  /** key → length, in least-recently-used-first order. */
  protected readonly lru = new Map<string, number>();

  /** key → checksum of the value as last written or read here (the one-request read path). */
  protected readonly sums = new Map<string, number>();

  /** Sum of the lengths of the values this store knows of. */
  protected bytes = 0;

  /** The highest write sequence seen (meta records keep theirs, for the LRU order). */
  protected seq = 0;

  /** Set by close(): every later call rejects with ClosedError. */
  protected closed = false;

  /** Puts and deletes waiting for the next transaction. */
  protected writes: PendingWrite[] = [];

  /** Reads waiting for the next shared read transaction. */
  protected reads: PendingRead[] = [];

  /** The transaction loop, while it runs. */
  protected writing: Promise<void> | undefined;

  /** Puts and deletes issued and not yet in `writes` (sealing, opening): close() waits for them. */
  protected readonly pending = new Set<Promise<unknown>>();

  /** Re-encryptions behind reads (rotation) still sealing: close() waits for them too. */
  protected readonly reseals = new Set<Promise<unknown>>();

  protected counters = storeCounters();

  /** maxAge and the clock. */
  protected readonly retention: RetentionSettings;

  /** key → write time (ms; undefined for records written before write times were kept). */
  protected readonly ats = new Map<string, number | undefined>();

  /** Deletes expired records every sweep interval (maxAge). */
  protected sweeper: SweepTimer | undefined;

  /** Seals and opens values when `encryptionKey` was given. */
  protected readonly cipher: RecordCipher | undefined;

  constructor(options: IdbStoreOptions) {
    object('options', options, 'an object with a name');
    checkStoreKey(options.name, 'name');
    this.name = options.name;
    this.maxBytes = withDefault('maxBytes', options.maxBytes, 2 ** 30, positiveBytes);
    this.chunkBytes = withDefault('chunkBytes', options.chunkBytes, 2 ** 20, positiveBytes);
    this.quotaBytes = withDefault('quotaBytes', options.quotaBytes, undefined, positiveBytes);
    this.webAssembly = withDefault('webAssembly', options.webAssembly, true, bool);
    const enc = checkEncryptionOptions(options);
    this.cipher = enc ? new RecordCipher(enc) : undefined;
    this.retention = checkRetentionOptions(options);
  }

  /** Whether a record written at `at` is older than maxAge now. */
  protected expiredAt(at: number | undefined): boolean {
    const { maxAge, clock } = this.retention;
    if (maxAge === undefined) return false;
    return at === undefined || !(clock.now() - at <= maxAge);
  }

  /** Delete every record older than maxAge (on open, then every sweep interval). */
  protected async sweep(): Promise<void> {
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

  protected open(): Promise<IDBPDatabase<IdbSchema>> {
    if (this.closed) return Promise.reject(new ClosedError('IdbStore'));
    this.db ??= (async () => {
      if (!IdbStoreBase.isSupported())
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
  protected async removeDamaged(db: IDBPDatabase<IdbSchema>, keys: IDBValidKey[]): Promise<void> {
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

  protected dropKnown(key: string): void {
    const len = this.lru.get(key);
    if (len === undefined) return;
    this.lru.delete(key);
    this.sums.delete(key);
    this.ats.delete(key);
    this.bytes -= len;
  }

  /** Queue a put (`value`) or a delete (undefined) for the next transaction; see IdbStoreWrites. */
  protected abstract write(
    key: string,
    value: Uint8Array | undefined,
    enc?: boolean,
    at?: number,
  ): Promise<boolean>;
}
