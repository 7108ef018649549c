import { ClosedError, isQuotaError, type StoreValue } from '@medfusion/core';
import { checkStoreKey, checkStoreValue } from '@medfusion/core/internal';
import { chunkRange, type Meta } from './idbMeta.js';
import { IdbStoreBase, type PendingWrite } from './idbStoreBase.js';
import { StoreError } from './storeErrors.js';

/**
 * The writes of an {@link IdbStore}: puts and deletes issued together commit in one
 * transaction, which first evicts the least recently used entries over `maxBytes` (and, after
 * a quota error, more, once). Internal.
 */
export abstract class IdbStoreWrites extends IdbStoreBase {
  /** Store `value` under `key`; writes issued together commit in one transaction. */
  async put(key: string, value: StoreValue): Promise<void> {
    checkStoreKey(key);
    checkStoreValue(value);
    if (this.closed) throw new ClosedError('IdbStore');
    return this.entering(this.putChecked(key, value));
  }

  /** Run `call` (a put or delete on its way to the write queue); close() waits for it. */
  protected entering<T>(call: Promise<T>): Promise<T> {
    this.pending.add(call);
    const done = () => this.pending.delete(call);
    call.then(done, done);
    return call;
  }

  protected async putChecked(key: string, value: StoreValue): Promise<void> {
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
    if (this.closed) throw new ClosedError('IdbStore');
    return this.entering(this.write(key, undefined));
  }

  protected async write(
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

  protected async drain(): Promise<void> {
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
  protected async commit(batch: PendingWrite[]): Promise<boolean[]> {
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
        // A sealed value's GCM tag authenticates it (a transaction leaves no torn record to
        // find): no checksum pass over it on the page's thread.
        sum: w.enc ? 0 : this.valueChecksum!.of(w.value),
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

  protected bytesAfter(victims: string[]): number {
    let b = this.bytes;
    for (const v of victims) b -= this.lru.get(v) ?? 0;
    return b;
  }

  /** Least recently used keys to drop so `incoming` more bytes fit under `target`. */
  protected pickVictims(incoming: number, target: number, keep: Set<string>): string[] {
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
}
