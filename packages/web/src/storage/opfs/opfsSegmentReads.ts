import { XXH64_TAG } from '../ValueChecksum.js';
import { OpfsEngineBase } from './opfsEngineBase.js';
import {
  decodeHead,
  type EntryLocation,
  recordSize,
  verifyEntry,
  verifyEntryHeader,
} from './opfsFormat.js';

/**
 * Who checks the values of a read batch: all here, or the caller (all, or only
 * the xxHash32 ones). Internal.
 */
export type ReadCheck = 'here' | 'caller' | 'caller-xxh32';

/** Marks a read the sync fast path leaves to the async one. */
const SLOW_PATH = Symbol('slow path');
/** Marks an intact plain record read by an encrypting engine. */
const PLAIN = Symbol('plain record');

/**
 * The OPFS segment engine's reads: a key's record read, checked against the index (header,
 * key, length, checksum, the store's sealed or plain mode) and returned, or dropped and wiped;
 * batches read with no await on sync handles. Internal: see {@link OpfsSegmentEngine}.
 */
export abstract class OpfsSegmentReads extends OpfsEngineBase {
  /** The buffer reads with `reuse` go into (see {@link readEach}). */
  protected scratch = new Uint8Array(0);

  /** The bytes under `key`, verified; undefined when absent or corrupt. */
  async get(key: string): Promise<Uint8Array | undefined> {
    // Another store (tab) announced a write: re-read the head (one small read) first.
    if (this.stale) {
      this.stale = false;
      await this.refreshIfChanged();
    }
    let loc = this.index.entries.get(key);
    if (!loc && (await this.refreshIfChanged())) loc = this.index.entries.get(key);
    if (!loc || (loc.time ?? 0) < this.minTime) return undefined;
    let data = await this.readVerified(key, loc);
    if (!data && (await this.refreshIfChanged())) {
      loc = this.index.entries.get(key);
      if (!loc) return undefined;
      data = await this.readVerified(key, loc);
    }
    if (data === PLAIN) {
      // Plaintext where the app asked for encryption: a miss, never returned, and wiped.
      if (this.discard(key, loc)) this.counters.plainDropped++;
      return undefined;
    }
    if (!data) {
      // Corrupt or torn: a miss, and the entry is gone for good.
      if (this.discard(key, loc)) this.counters.corruptDropped++;
      return undefined;
    }
    const segment = this.index.segments.get(loc.segment);
    if (segment) this.index.touch(segment);
    return data;
  }

  /**
   * Serve a batch of reads. Indexed keys in sync-handle segments are read and
   * verified with no await (one after the other, in this task); anything
   * else (a miss, a stale view, a failed check, the async file API) takes
   * {@link get}, which re-syncs with disk and drops a corrupt entry.
   */
  async getMany(keys: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    const out: (Uint8Array | undefined)[] = new Array(keys.length);
    await this.readEach(keys, 'here', (i, value) => {
      out[i] = value;
    });
    return out;
  }

  /**
   * Serve a batch of reads like {@link getMany}, handing each value to `each`
   * as soon as it is read. With `check` `'caller'`, a value read on the sync
   * fast path comes with the checksum its bytes must have (`sum`), which the
   * caller checks before trusting them (on its own thread, while this one
   * reads on); `'caller-xxh32'` does so only for xxHash32 checksums (a caller
   * without WebAssembly); every other value is verified here and comes with
   * `sum` -1.
   */
  async readEach(
    keys: readonly string[],
    check: ReadCheck,
    each: (i: number, value: Uint8Array | undefined, sum: number) => void,
    /**
     * Read the fast path's values into one reused buffer instead of a fresh
     * one each: a value is then a view that the next read overwrites, so
     * `each` must be done with it (or have copied it) when it returns. For a
     * caller that copies anyway (WebCrypto copies what it decrypts): a fresh
     * 150 KB buffer costs a worker its zeroing and page faults.
     */
    reuse = false,
  ): Promise<void> {
    // One 16-byte read per batch: a write by another store (tab) is seen at
    // once, even before its broadcast arrives.
    if (!this.stale && this.head?.readSync) {
      try {
        if (decodeHead(this.head.readSync(0, 16)).seq !== this.seq) this.stale = true;
      } catch {
        this.stale = true;
      }
    }
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const loc = this.stale ? undefined : this.index.entries.get(key);
      if (loc && (loc.time ?? 0) < this.minTime) {
        each(i, undefined, -1); // expired: a miss (a purge deletes it)
        continue;
      }
      const verifyData =
        check === 'here' || (check === 'caller-xxh32' && loc !== undefined && loc.sum >= XXH64_TAG);
      const fast = loc ? this.getSync(key, loc, verifyData, reuse) : SLOW_PATH;
      if (fast === SLOW_PATH) each(i, await this.get(key), -1);
      else each(i, fast, verifyData ? -1 : loc!.sum);
    }
  }

  /**
   * A read of the indexed entry `loc` without await, verified (the value's
   * checksum only when `verifyData`), or SLOW_PATH when {@link get} must decide.
   */
  protected getSync(
    key: string,
    loc: EntryLocation,
    verifyData: boolean,
    reuse = false,
  ): Uint8Array | typeof SLOW_PATH {
    const segment = this.index.segments.get(loc.segment);
    if (!segment?.file.readSync) return SLOW_PATH;
    let bytes: Uint8Array;
    try {
      const size = recordSize(loc.keyLen, loc.len);
      if (reuse && this.scratch.length < size) {
        this.scratch = new Uint8Array(2 ** Math.ceil(Math.log2(size)));
      }
      bytes = segment.file.readSync(loc.offset, size, reuse ? this.scratch : undefined);
    } catch {
      return SLOW_PATH;
    }
    const data = verifyData
      ? verifyEntry(bytes, key, loc, this.valueChecksum, this.flags)
      : verifyEntryHeader(bytes, key, loc, this.flags);
    if (!data) return SLOW_PATH;
    this.index.touch(segment);
    return data;
  }

  /** The verified value at `loc`; PLAIN for an intact plain record where this engine encrypts. */
  protected async readVerified(
    key: string,
    loc: EntryLocation,
  ): Promise<Uint8Array | undefined | typeof PLAIN> {
    const segment = this.index.segments.get(loc.segment);
    if (!segment) return undefined;
    try {
      const bytes = await segment.file.read(loc.offset, recordSize(loc.keyLen, loc.len));
      const data = verifyEntry(bytes, key, loc, this.valueChecksum, this.flags);
      if (data || !this.flags) return data;
      return verifyEntry(bytes, key, loc, this.valueChecksum, 0) ? PLAIN : undefined;
    } catch {
      return undefined;
    }
  }
}
