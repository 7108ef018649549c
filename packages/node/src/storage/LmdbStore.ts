import { renameSync } from 'node:fs';
import { join } from 'node:path';
import {
  ClosedError,
  type PersistentStore,
  StoreError,
  type StoreUsage,
  type StoreValue,
} from '@medfusion/core';
import {
  checkStoreKey,
  checkStoreValue,
  SweepTimer,
  sweepInterval,
} from '@medfusion/core/internal';
import { LmdbBatch, type PendingWrite } from './LmdbBatch.js';
import {
  dataFile,
  decodeMeta,
  fileBytes,
  type Generation,
  newestGeneration,
  openGeneration,
  readFast,
  removeFile,
} from './lmdbFiles.js';
import { open as openSealed, readRecord, seal } from './lmdbRecord.js';
import {
  checkLmdbStoreOptions,
  type LmdbSettings,
  type LmdbStoreOptions,
} from './lmdbStoreOptions.js';

/** Usage of an {@link LmdbStore}. */
export interface LmdbStoreUsage extends StoreUsage {
  /** Bytes of the database file (live values, their index, and free pages until `compact()`). */
  fileBytes: number;
  /** Entries evicted to stay under `maxBytes` (or the quota). */
  evictions: number;
  /** Entries whose value failed its checksum: dropped, read as misses. */
  corruptDropped: number;
  /** Writes refused for lack of space (`quotaBytes`, a full disk). */
  quotaErrors: number;
  /** Records no key opened: dropped, read as misses. */
  undecryptable: number;
  /** Records of a previous key written again under `encryptionKey`. */
  reencrypted: number;
  /** Records of a previous key dropped (`rotation: 'drop'`). */
  previousKeyDropped: number;
  /** Plain records found by a store given `encryptionKey`: dropped, never returned. */
  plainDropped: number;
  /** Records deleted for being older than `maxAge`. */
  expired: number;
  /** Compactions since open. */
  compactions: number;
}

/**
 * A {@link PersistentStore} on LMDB (the `lmdb` package) for Node: the disk tier of
 * `createCachedDataset` with `cacheDir`. Values are records of one LMDB database, each with
 * its write time and a CRC-32 checksum (`@node-rs/crc32`, in hardware; LMDB keeps
 * whole transactions across a crash but does not checksum its pages: a damaged value is a miss,
 * never wrong bytes), or sealed with
 * AES-GCM (`encryptionKey`, node:crypto). Puts issued together commit in one transaction; over
 * `maxBytes` the least recently used entries go. Several instances and processes may open one
 * `dir`. Deleted and overwritten values stay in LMDB's free pages until {@link compact}.
 *
 * @example
 * const store = new LmdbStore({ dir: './cache/xray', maxBytes: 10 * 2 ** 30 });
 * await store.put('xray@1/0', bytes);
 * const back = await store.get('xray@1/0'); // Uint8Array or undefined
 * await store.close();
 */
export class LmdbStore implements PersistentStore {
  /** The directory. */
  readonly dir: string;
  /** The byte budget of the stored values. */
  readonly maxBytes: number;
  private readonly s: LmdbSettings;
  private g: Generation | undefined;
  private readonly batch: LmdbBatch;
  private closed = false;
  private sweeper: SweepTimer | undefined;
  private compactions = 0;
  /** Re-encryptions behind reads: close() waits for them. */
  private readonly reseals = new Set<Promise<unknown>>();

  constructor(options: LmdbStoreOptions) {
    this.s = checkLmdbStoreOptions(options);
    this.dir = this.s.dir;
    this.maxBytes = this.s.maxBytes;
    this.batch = new LmdbBatch(this.s, () => this.gen());
  }

  /** The open generation, after following a compaction made elsewhere. */
  private gen(): Generation {
    if (this.closed) throw new ClosedError('LmdbStore');
    if (!this.g) this.openStore();
    let g = this.g!;
    const moved = g.ctl.get('moved');
    if (typeof moved === 'number' && moved > g.gen) {
      void g.root.close();
      this.g = g = openGeneration(this.dir, moved);
      this.batch.reload();
    }
    return g;
  }

  private openStore(): void {
    let gen = newestGeneration(this.dir);
    if (gen === 0) gen = 1;
    const g = openGeneration(this.dir, gen);
    const sealed = g.ctl.get('sealed') === 1;
    if (sealed && this.s.keys.length === 0) {
      void g.root.close();
      throw new StoreError(
        'ENCRYPTION_KEY_REQUIRED',
        `the LMDB store ${JSON.stringify(this.dir)} holds encrypted records: open it with its encryptionKey`,
      );
    }
    this.g = g;
    this.batch.reload();
    if (this.s.keys.length > 0 && !sealed) {
      // Plain records are never trusted under a key: dropped now (their bytes at compact()).
      const plain: string[] = [];
      for (const { key, value } of g.data.getRange({})) {
        if (!readRecord(value)?.sealed) plain.push(key);
      }
      this.batch.counters.plainDropped += plain.length;
      g.root.transactionSync(() => {
        for (const k of plain) this.batch.removeNow(g, k);
        g.ctl.putSync('sealed', 1);
      });
    }
    const { maxAge, clock } = this.s.retention;
    if (maxAge !== undefined) {
      this.purgeExpired();
      this.sweeper = new SweepTimer(clock, sweepInterval(maxAge), async () => this.purgeExpired());
      this.sweeper.start();
    }
  }

  /** Records written before this (seconds since the epoch) are expired; 0 without maxAge. */
  private minTime(): number {
    const { maxAge, clock } = this.s.retention;
    return maxAge === undefined ? 0 : Math.max(0, Math.floor((clock.now() - maxAge) / 1000));
  }

  private purgeExpired(): void {
    if (this.closed) return;
    const g = this.gen();
    const min = this.minTime();
    const old: string[] = [];
    for (const { key, value } of g.meta.getRange({})) {
      if ((decodeMeta(value)?.time ?? 0) < min) old.push(key);
    }
    if (old.length === 0) return;
    this.batch.counters.expired += old.length;
    g.root.transactionSync(() => {
      for (const k of old) this.batch.removeNow(g, k);
    });
  }

  /** The bytes stored under `key`, or undefined when absent, expired, damaged or not openable. */
  async get(key: string): Promise<StoreValue | undefined> {
    checkStoreKey(key);
    const g = this.gen();
    // A view into lmdb's read buffer, valid until the next read: everything below up to the
    // first await is synchronous; the value is copied out once (or deciphered out), the record
    // copied only where a write behind the read needs it (`Buffer.from(fast)`).
    const fast = readFast(g.data, key);
    if (fast === undefined) return undefined;
    const c = this.batch.counters;
    const rec = readRecord(fast);
    if (!rec || this.s.keys.length > 0 !== rec.sealed) {
      if (!rec) c.corruptDropped++;
      else if (!rec.sealed) c.plainDropped++;
      await this.dropIfSame(key, Buffer.from(fast));
      return undefined;
    }
    if (rec.time < this.minTime()) {
      c.expired++;
      await this.dropIfSame(key, Buffer.from(fast));
      return undefined;
    }
    this.batch.touch(key);
    if (!rec.sealed) return new Uint8Array(rec.data);
    const { value, keyIndex } = openSealed(this.s.keys, key, rec.data);
    if (value === undefined || (keyIndex > 0 && this.s.rotation === 'drop')) {
      if (value === undefined) c.undecryptable++;
      else c.previousKeyDropped++;
      await this.dropIfSame(key, Buffer.from(fast));
      return undefined;
    }
    if (keyIndex > 0) {
      c.reencrypted++;
      // Behind the read, keeping the write time (re-encrypting does not make it younger).
      const resealed = seal(this.s.keys[0]!, key, value);
      const w = this.batch
        .enqueue({
          key,
          sealed: true,
          data: resealed,
          time: rec.time,
          onlyOver: Buffer.from(fast),
        })
        .catch(() => {})
        .finally(() => this.reseals.delete(w));
      this.reseals.add(w);
    }
    return value;
  }

  /** Delete `key` if it still holds `bytes` (another writer may have replaced it). */
  private async dropIfSame(key: string, bytes: Uint8Array): Promise<void> {
    await this.batch.enqueue({ key, data: undefined, onlyOver: bytes }).catch(() => {});
  }

  /**
   * Store `value` under `key`. Puts issued together (one turn of the event loop) commit in one
   * transaction; it resolves once committed. Rejects with StoreError `ENTRY_TOO_LARGE` over
   * `maxBytes`, `QUOTA_EXCEEDED` when the space is not there even after evicting.
   */
  async put(key: string, value: StoreValue): Promise<void> {
    checkStoreKey(key);
    checkStoreValue(value);
    this.gen();
    const sealed = this.s.keys.length > 0;
    const data = sealed ? seal(this.s.keys[0]!, key, value) : value;
    if (data.length > this.maxBytes) {
      throw new StoreError(
        'ENTRY_TOO_LARGE',
        `value for key ${JSON.stringify(key)} is ${data.length} bytes${sealed ? ' sealed' : ''}, more than maxBytes ${this.maxBytes}`,
      );
    }
    const w: PendingWrite = { key, sealed, data };
    await this.batch.enqueue(w);
  }

  /** Remove `key`; true when it was present. */
  async delete(key: string): Promise<boolean> {
    checkStoreKey(key);
    this.gen();
    return this.batch.enqueue({ key, data: undefined });
  }

  /** Whether `key` is stored. */
  async has(key: string): Promise<boolean> {
    checkStoreKey(key);
    return this.gen().meta.doesExist(key);
  }

  /** Every stored key. */
  async keys(): Promise<string[]> {
    return [...this.gen().meta.getKeys({})];
  }

  /** Remove every entry (its bytes stay in free pages until {@link compact}). */
  async clear(): Promise<void> {
    this.gen();
    await this.batch.settled();
    const g = this.gen();
    await g.root.transaction(() => {
      for (const k of g.meta.getKeys({})) this.batch.removeNow(g, k);
    });
    this.batch.reload();
  }

  /**
   * Delete every record of the data set `fingerprint` (keys `<fingerprint>/…`) in one
   * transaction; resolves with how many went (0 for an unknown one). Their bytes leave the
   * file at the next {@link compact}.
   */
  async forget(fingerprint: string): Promise<number> {
    checkStoreKey(fingerprint, 'fingerprint');
    this.gen();
    await this.batch.settled();
    const g = this.gen();
    const prefix = `${fingerprint}/`;
    let n = 0;
    await g.root.transaction(() => {
      for (const k of g.meta.getKeys({ start: prefix, end: `${prefix}\uffff` })) {
        this.batch.removeNow(g, k);
        n++;
      }
    });
    this.batch.reload();
    return n;
  }

  /** Delete every record of every data set (as {@link clear}); resolves with how many went. */
  async forgetAll(): Promise<number> {
    const n = (await this.keys()).length;
    await this.clear();
    return n;
  }

  /**
   * Rewrite the database into a fresh file with LMDB's compacting copy (the live pages only)
   * and remove the old file: after it, no byte of a deleted, overwritten, evicted, expired,
   * forgotten or dropped record is left in the store's files. Other instances on `dir` follow
   * at their next call. Costs a copy of the live data.
   */
  async compact(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.batch.settled();
      const g = this.gen();
      const next = g.gen + 1;
      const building = join(this.dir, `building-${next}.mdb`);
      const seq = g.ctl.get('seq') ?? 0;
      await g.root.backup(building, true);
      removeFile(`${building}-lock`);
      renameSync(building, join(this.dir, dataFile(next)));
      let moved = false;
      // Only when nothing was written since the copy began: else copy again.
      await g.root.transaction(() => {
        if ((g.ctl.get('seq') ?? 0) === seq && g.ctl.get('moved') === undefined) {
          g.ctl.put('moved', next);
          moved = true;
        }
      });
      if (!moved) {
        removeFile(join(this.dir, dataFile(next)));
        continue;
      }
      this.gen(); // follows the mark
      removeFile(join(this.dir, dataFile(g.gen)));
      removeFile(join(this.dir, `${dataFile(g.gen)}-lock`));
      this.compactions++;
      return;
    }
    throw new StoreError(
      'STORE_FAILED',
      `compact(): ${this.dir} was written to during each of 3 copies`,
    );
  }

  /** Wait until every put and delete issued so far is committed. */
  async flush(): Promise<void> {
    this.gen();
    await this.batch.settled();
  }

  /** Entries, bytes, the file's size and the counters. */
  async usage(): Promise<LmdbStoreUsage> {
    const g = this.gen();
    this.batch.refresh(g);
    return {
      bytes: this.batch.bytes,
      entries: this.batch.entries,
      maxBytes: this.maxBytes,
      fileBytes: fileBytes(this.dir, g.gen),
      ...this.batch.counters,
      compactions: this.compactions,
    };
  }

  /** Commit what is queued, then close the database; later calls reject with ClosedError. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.sweeper?.stop();
    if (this.g) {
      while (this.reseals.size > 0) await Promise.allSettled([...this.reseals]);
      await this.batch.settled();
    }
    this.closed = true;
    const g = this.g;
    this.g = undefined;
    await g?.root.close();
  }
}
