import { StoreError } from '@medfusion/core';
import { storeCounters } from '@medfusion/core/internal';
import { decodeMeta, encodeMeta, type Generation } from './lmdbFiles.js';
import { makeRecord } from './lmdbRecord.js';
import type { LmdbSettings } from './lmdbStoreOptions.js';

/** A put (`data` set) or a delete (`data` undefined) on its way to a transaction. Internal. */
export interface PendingWrite {
  key: string;
  /** The value (sealed when `sealed`), or undefined to delete. */
  data: Uint8Array | undefined;
  sealed?: boolean;
  /** Write time in seconds (a re-encrypted record keeps its own); default now. */
  time?: number;
  /** Only when the key still holds exactly these record bytes (a drop or a re-encryption behind a read). */
  onlyOver?: Uint8Array;
}

interface Queued extends PendingWrite {
  resolve: (had: boolean) => void;
  reject: (e: unknown) => void;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && Buffer.compare(a, b) === 0;

/**
 * The write side of {@link LmdbStore} (internal): puts and deletes issued in one turn of the
 * event loop commit in one LMDB transaction, which also evicts the least recently used entries
 * over `maxBytes` (and the quota), and keeps the in-memory LRU order and byte count. The `meta`
 * database is the index every instance rebuilds them from when another one wrote (`seq`).
 */
export class LmdbBatch {
  /** The store's counters (usage()). */
  readonly counters = storeCounters();
  /** key → value length, least recently used first. */
  private lru = new Map<string, number>();
  /** Sum of the value lengths. */
  bytes = 0;
  private seenSeq = -1;
  private queue: Queued[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly s: LmdbSettings,
    private readonly gen: () => Generation,
  ) {}

  /** Entries as last seen. */
  get entries(): number {
    return this.lru.size;
  }

  /** Forget what is known: rebuilt from `meta` at the next use. */
  reload(): void {
    this.seenSeq = -1;
  }

  /** Rebuild the LRU order from `meta` if any instance wrote since (oldest written first). */
  refresh(g: Generation): void {
    const seq = g.ctl.get('seq') ?? 0;
    if (seq === this.seenSeq) return;
    const all: [string, number, number][] = [];
    for (const { key, value } of g.meta.getRange({})) {
      const m = decodeMeta(value);
      if (m) all.push([key, m.length, m.time]);
    }
    all.sort((a, b) => a[2] - b[2]);
    const known = this.lru;
    this.lru = new Map();
    this.bytes = 0;
    // Keys this instance used keep their (more recent) place after the others.
    for (const [k, len] of all) if (!known.has(k)) this.lru.set(k, len);
    for (const k of known.keys()) {
      const hit = all.find((e) => e[0] === k);
      if (hit) this.lru.set(k, hit[1]);
    }
    for (const len of this.lru.values()) this.bytes += len;
    this.seenSeq = seq;
  }

  /** `key` was just read: most recently used now. */
  touch(key: string): void {
    const len = this.lru.get(key);
    if (len === undefined) return;
    this.lru.delete(key);
    this.lru.set(key, len);
  }

  /** Remove `key` in the transaction running now. */
  removeNow(g: Generation, key: string): void {
    g.data.remove(key);
    g.meta.remove(key);
    const len = this.lru.get(key);
    if (len !== undefined) {
      this.lru.delete(key);
      this.bytes -= len;
    }
    this.bump(g);
  }

  private bump(g: Generation): void {
    const seq = (g.ctl.get('seq') ?? 0) + 1;
    g.ctl.put('seq', seq);
    this.seenSeq = seq;
  }

  /** Queue `w`; resolves (true when the key was there before) once its transaction committed. */
  enqueue(w: PendingWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...w, resolve, reject });
      this.running ??= Promise.resolve().then(() => this.drain());
    });
  }

  /** Resolves once everything queued so far is committed. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      let results: (boolean | Error)[] = [];
      try {
        const g = this.gen();
        await g.root.transaction(() => {
          results = this.apply(g, batch);
        });
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        const full = code === 'ENOSPC' || /MDB_MAP_FULL|ENOSPC/.test(String(err));
        if (full) this.counters.quotaErrors++;
        const e = new StoreError(
          full ? 'QUOTA_EXCEEDED' : 'STORE_FAILED',
          `LMDB write failed: ${String(err)}`,
          { cause: err },
        );
        results = batch.map(() => e);
      }
      batch.forEach((w, i) => {
        const r = results[i];
        if (r instanceof Error) w.reject(r);
        else w.resolve(r ?? false);
      });
    }
    this.running = undefined;
  }

  /** The batch's writes in the transaction running now: one result per write. */
  private apply(g: Generation, batch: Queued[]): (boolean | Error)[] {
    this.refresh(g);
    const now = Math.max(0, Math.floor(this.s.retention.clock.now() / 1000));
    const out: (boolean | Error)[] = [];
    for (const w of batch) {
      const cur = g.data.get(w.key);
      if (w.onlyOver && !(cur && sameBytes(cur, w.onlyOver))) {
        out.push(false);
        continue;
      }
      if (w.data === undefined) {
        if (cur !== undefined) this.removeNow(g, w.key);
        out.push(cur !== undefined);
        continue;
      }
      const old = this.lru.get(w.key) ?? 0;
      const incoming = w.data.length - old;
      this.evictFor(g, incoming, this.s.maxBytes, w.key);
      const quota = this.s.quotaBytes;
      if (quota !== undefined && this.bytes + incoming > quota) {
        // As a full disk: evict for the room and retry once, then refuse.
        this.counters.quotaErrors++;
        this.evictFor(g, incoming, quota, w.key);
        if (this.bytes + incoming > quota) {
          out.push(
            new StoreError(
              'QUOTA_EXCEEDED',
              `storage quota exceeded writing ${w.data.length} bytes, even after evicting`,
            ),
          );
          continue;
        }
      }
      const time = w.time ?? now;
      g.data.put(w.key, makeRecord(w.data, w.sealed === true, time));
      g.meta.put(w.key, encodeMeta(w.data.length, time));
      this.lru.delete(w.key);
      this.lru.set(w.key, w.data.length);
      this.bytes += incoming;
      out.push(cur !== undefined);
    }
    this.bump(g);
    return out;
  }

  /** Evict least recently used entries (never `keep`) until `incoming` more bytes fit under `target`. */
  private evictFor(g: Generation, incoming: number, target: number, keep: string): void {
    for (const k of [...this.lru.keys()]) {
      if (this.bytes + incoming <= target) return;
      if (k === keep) continue;
      this.removeNow(g, k);
      this.counters.evictions++;
    }
  }
}
