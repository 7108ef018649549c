import type { EncryptionUsage } from '../encryption/encryptionOptions.js';
import { type RecordCipher, SEALED_OVERHEAD } from '../encryption/RecordCipher.js';
import { StoreError } from '../storeErrors.js';
import type { FileBackend } from './opfsFiles.js';
import {
  type EntryLocation,
  encodeRecord,
  FLAG_ENCRYPTED,
  FLAG_TOMBSTONE,
  packedRecordSize,
  RECORD_HEADER,
} from './opfsFormat.js';
import { checkedKeyLength, packRecords } from './opfsWritePlan.js';

/** Smallest sealed-batch buffer. */
const MIN_SEALED_BUFFER = 2 ** 20;
/** Sealed-batch buffers kept for reuse (a batch is sealed while the one before it is written). */
const MAX_SPARE_BUFFERS = 3;

/** A write batch being sealed (see OpfsSealing.sealBatch). Internal. */
export interface SealingBatch {
  /** The sealed records back to back; record i is in place once `ready[i]`. */
  bytes: Uint8Array;
  /** Offset of record i in `bytes`. */
  starts: number[];
  /** End (exclusive) of record i in `bytes`. */
  ends: number[];
  /** Settles when record i is in place (rejects when sealing it failed). */
  sealed: Promise<void>[];
  /** Whether record i is in place now. */
  ready: boolean[];
}

/**
 * Name of the file that marks a directory as holding encrypted records: a
 * store opened there without `encryptionKey` refuses to open, so sealed
 * bytes are never served as a value and a missing key is named at once.
 */
export const ENCRYPTED_MARKER = 'encrypted.bin';
const MARKER_BYTES = new TextEncoder().encode('MFE1');

/**
 * Check the directory's encryption marker: without a key on a marked directory, a StoreError
 * `ENCRYPTION_KEY_REQUIRED`. Returns true when a store with a key opens an unmarked directory:
 * plain records may be there, which the host wipes before it sets the marker
 * ({@link setEncryptionMarker}). Internal.
 */
export async function checkEncryptionMarker(
  fs: FileBackend,
  dir: string,
  encrypted: boolean,
): Promise<boolean> {
  const marked = (await fs.list()).includes(ENCRYPTED_MARKER);
  if (!encrypted && marked) {
    throw new StoreError(
      'ENCRYPTION_KEY_REQUIRED',
      `the OPFS store ${JSON.stringify(dir)} holds encrypted records: open it with its encryptionKey`,
    );
  }
  return encrypted && !marked;
}

/** Mark the directory as holding encrypted records (see {@link checkEncryptionMarker}), holding the writer lock. Internal. */
export async function setEncryptionMarker(fs: FileBackend): Promise<void> {
  // Another store may have marked it meanwhile (the caller holds the writer lock).
  if ((await fs.list()).includes(ENCRYPTED_MARKER)) return;
  const f = await fs.open(ENCRYPTED_MARKER, true);
  if (f) {
    await f.write(0, MARKER_BYTES);
    await f.flush();
    await f.close();
  }
}

/** What the sealing layer needs of the engine (the host's ordered calls). Internal. */
export interface SealingEngine {
  /** The live entry of `key` now (its identity changes whenever the key is written). */
  entryOf(key: string): EntryLocation | undefined;
  /** Run `fn` after every earlier ordered call (writes keep their order). */
  inOrder(fn: () => Promise<unknown>): void;
  /** Write a packed batch (ordered by the caller). */
  writeBatch(bytes: Uint8Array, keys: readonly string[]): Promise<(unknown | undefined)[]>;
  /** Tombstone `key` (ordered by the caller). */
  deleteKey(key: string): Promise<boolean>;
}

/**
 * Encryption at rest of the OPFS store, in its worker (where its I/O runs):
 * seals each value of a packed write batch before the engine writes it, and
 * opens each value the engine reads before it goes to the page. The GCM tag
 * authenticates a sealed value, so the host checks no checksum on reads; the
 * records still carry their xxHash checksum over the sealed bytes, which the
 * engine's recovery scan uses to find torn tails. Internal.
 */
export class OpfsSealing {
  /** What the sealing layer counted (plain records are the engine's to count). */
  readonly counters: Omit<EncryptionUsage, 'plainDropped'> = {
    undecryptable: 0,
    reencrypted: 0,
    previousKeyDropped: 0,
  };

  /** Sealed-batch buffers whose batch is written, for the next batches. */
  private readonly spare: ArrayBuffer[] = [];

  constructor(
    private readonly cipher: RecordCipher,
    private readonly engine: SealingEngine,
  ) {}

  /**
   * Start sealing every value of the packed batch `batch` (from packRecords)
   * at once, each straight into its place in one new buffer (sealed sizes are
   * known ahead: a value grows by SEALED_OVERHEAD); {@link writeSealed} writes
   * the records as they are sealed. Each record keeps its write time.
   */
  sealBatch(batch: Uint8Array, keys: readonly string[]): SealingBatch {
    const starts: number[] = new Array(keys.length);
    const ends: number[] = new Array(keys.length);
    const ready: boolean[] = new Array(keys.length).fill(false);
    const values: (Uint8Array | undefined)[] = new Array(keys.length);
    const times: number[] = new Array(keys.length);
    const keyLens: number[] = new Array(keys.length);
    let at = 0;
    let total = 0;
    for (let i = 0; i < keys.length; i++) {
      const size = packedRecordSize(batch, at);
      if (size < 0) {
        throw new StoreError(
          'STORE_FAILED',
          `write batch is malformed at record ${i} (byte ${at})`,
        );
      }
      const dv = new DataView(batch.buffer, batch.byteOffset + at, RECORD_HEADER);
      const keyLen = checkedKeyLength(keys[i]!);
      keyLens[i] = keyLen;
      times[i] = dv.getUint32(20, true);
      const tombstone = (dv.getUint16(4, true) & FLAG_TOMBSTONE) !== 0;
      values[i] = tombstone
        ? undefined
        : batch.subarray(at + RECORD_HEADER + dv.getUint16(6, true), at + size);
      starts[i] = total;
      total +=
        RECORD_HEADER +
        keyLen +
        (tombstone ? 0 : size - RECORD_HEADER - dv.getUint16(6, true) + SEALED_OVERHEAD);
      ends[i] = total;
      at += size;
    }
    const bytes = this.takeBuffer(total);
    const sealed = keys.map(async (key, i) => {
      const value = values[i];
      const pos = starts[i]!;
      const keyLen = keyLens[i]!;
      if (value === undefined) {
        encodeRecord(bytes, pos, key, keyLen, undefined, FLAG_TOMBSTONE, times[i]);
      } else {
        const { head, body } = await this.cipher.sealParts(key, value);
        encodeRecord(bytes, pos, key, keyLen, undefined, FLAG_ENCRYPTED, times[i]);
        new DataView(bytes.buffer, pos, RECORD_HEADER).setUint32(
          8,
          head.length + body.length,
          true,
        );
        // The one copy of the sealed value: into its place in the batch.
        bytes.set(head, pos + RECORD_HEADER + keyLen);
        bytes.set(body, pos + RECORD_HEADER + keyLen + head.length);
      }
      ready[i] = true;
    });
    for (const p of sealed) p.catch(() => {}); // reported by writeSealed
    return { bytes, starts, ends, sealed, ready };
  }

  /**
   * Write the records of `s` in order as they are sealed: each write takes
   * the records sealed by then (at least the next one), so the disk writes
   * record i while WebCrypto seals record i + 1. Returns one error (or
   * undefined) per record; after a failed append the rest of the batch gets
   * its error, as one write of the whole batch would.
   */
  async writeSealed(s: SealingBatch, keys: readonly string[]): Promise<(unknown | undefined)[]> {
    const results: (unknown | undefined)[] = new Array(keys.length).fill(undefined);
    let k = 0;
    while (k < keys.length) {
      try {
        await s.sealed[k];
      } catch (err) {
        results[k++] = err;
        continue;
      }
      let j = k + 1;
      while (j < keys.length && s.ready[j]) j++;
      const part = await this.engine.writeBatch(
        s.bytes.subarray(s.starts[k]!, s.ends[j - 1]!),
        keys.slice(k, j),
      );
      for (let t = k; t < j; t++) results[t] = part[t - k];
      const failed = part.find(
        (e) => e !== undefined && !(e instanceof StoreError && e.code === 'ENTRY_TOO_LARGE'),
      );
      if (failed !== undefined) {
        for (let t = j; t < keys.length; t++) results[t] = failed;
        break;
      }
      k = j;
    }
    // Its buffer serves a later batch once no seal can write into it any more.
    void Promise.allSettled(s.sealed).then(() => this.giveBack(s.bytes.buffer as ArrayBuffer));
    return results;
  }

  /**
   * A view of `size` bytes of a spare sealed-batch buffer, or of a new one (sized up to a power
   * of two of at least 1 MiB, so later batches fit): a fresh large buffer costs the thread its
   * zeroing and page faults, as much as a copy of the batch.
   */
  private takeBuffer(size: number): Uint8Array {
    const i = this.spare.findIndex((b) => b.byteLength >= size);
    const buffer =
      i >= 0
        ? this.spare.splice(i, 1)[0]!
        : new ArrayBuffer(
            Math.max(MIN_SEALED_BUFFER, 2 ** Math.ceil(Math.log2(Math.max(1, size)))),
          );
    return new Uint8Array(buffer, 0, size);
  }

  private giveBack(buffer: ArrayBuffer): void {
    if (this.spare.length < MAX_SPARE_BUFFERS) this.spare.push(buffer);
  }

  /**
   * The plaintext of `sealed`, read for `key` at `loc`, or undefined (a miss)
   * when no key opens it (the entry is dropped) or it was sealed with a
   * previous key and `rotation` is `'drop'`; sealed with a previous key and
   * `'reencrypt'`, it is written again under the current key, behind the read.
   */
  async open(
    key: string,
    sealed: Uint8Array,
    loc: EntryLocation | undefined,
    transient = false,
  ): Promise<Uint8Array | undefined> {
    const { value, keyIndex } = await this.cipher.open(key, sealed, transient);
    if (value === undefined) {
      this.counters.undecryptable++;
      this.dropIfUnchanged(key, loc);
      return undefined;
    }
    if (keyIndex === 0) return value;
    if (this.cipher.settings.rotation === 'drop') {
      this.counters.previousKeyDropped++;
      this.dropIfUnchanged(key, loc);
      return undefined;
    }
    this.counters.reencrypted++;
    const resealed = this.cipher.seal(key, value);
    this.engine.inOrder(async () => {
      const bytes = await resealed;
      // Only over the record that was read: a newer put of the key stays.
      if (loc === undefined || this.engine.entryOf(key) !== loc) return;
      // Its write time stays: re-encrypting does not make a record younger (maxAge).
      const item = { key, keyLen: checkedKeyLength(key), value: bytes, flags: FLAG_ENCRYPTED };
      await this.engine.writeBatch(packRecords([item], undefined, false, loc.time ?? 0), [key]);
    });
    return value;
  }

  private dropIfUnchanged(key: string, loc: EntryLocation | undefined): void {
    this.engine.inOrder(async () => {
      if (loc !== undefined && this.engine.entryOf(key) === loc) await this.engine.deleteKey(key);
    });
  }
}
