import type { EncryptionUsage } from '../encryption/encryptionOptions.js';
import type { RecordCipher } from '../encryption/RecordCipher.js';
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

/** One record of a batch being sealed: its sealed value's parts, or none for a tombstone. */
interface SealedItem {
  key: string;
  keyLen: number;
  parts: { head: Uint8Array; body: Uint8Array } | undefined;
}

/**
 * Name of the file that marks a directory as holding encrypted records: a
 * store opened there without `encryptionKey` refuses to open, so sealed
 * bytes are never served as a value and a missing key is named at once.
 */
export const ENCRYPTED_MARKER = 'encrypted.bin';
const MARKER_BYTES = new TextEncoder().encode('MFE1');

/**
 * Check (and, with a key, set) the directory's encryption marker: without a
 * key on a marked directory, a StoreError `ENCRYPTION_KEY_REQUIRED`. Internal.
 */
export async function checkEncryptionMarker(
  fs: FileBackend,
  dir: string,
  encrypted: boolean,
): Promise<void> {
  const marked = (await fs.list()).includes(ENCRYPTED_MARKER);
  if (!encrypted && marked) {
    throw new StoreError(
      'ENCRYPTION_KEY_REQUIRED',
      `the OPFS store ${JSON.stringify(dir)} holds encrypted records: open it with its encryptionKey`,
    );
  }
  if (encrypted && !marked) {
    const f = await fs.open(ENCRYPTED_MARKER, true);
    if (f) {
      await f.write(0, MARKER_BYTES);
      await f.flush();
      await f.close();
    }
  }
}

/** What the sealing layer needs of the engine (the host's ordered calls). Internal. */
export interface SealingEngine {
  /** The live entry of `key` now (its identity changes whenever the key is written). */
  entryOf(key: string): EntryLocation | undefined;
  /** Run `fn` after every earlier ordered call (writes keep their order). */
  inOrder(fn: () => Promise<unknown>): void;
  /** Write a packed batch (ordered by the caller). */
  writeBatch(bytes: Uint8Array, keys: readonly string[]): Promise<unknown>;
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

  constructor(
    private readonly cipher: RecordCipher,
    private readonly engine: SealingEngine,
  ) {}

  /**
   * The packed batch `batch` (from packRecords) with every value sealed, as a
   * new batch; the records keep their write time (one per batch: the page
   * stamps a batch once).
   */
  async sealBatch(batch: Uint8Array, keys: readonly string[]): Promise<Uint8Array> {
    const items: Promise<SealedItem>[] = [];
    let at = 0;
    const time =
      batch.length >= RECORD_HEADER
        ? new DataView(batch.buffer, batch.byteOffset, RECORD_HEADER).getUint32(20, true)
        : 0;
    for (let i = 0; i < keys.length; i++) {
      const size = packedRecordSize(batch, at);
      if (size < 0) {
        throw new StoreError(
          'STORE_FAILED',
          `write batch is malformed at record ${i} (byte ${at})`,
        );
      }
      const dv = new DataView(batch.buffer, batch.byteOffset + at, RECORD_HEADER);
      const key = keys[i]!;
      const keyLen = checkedKeyLength(key);
      if (dv.getUint16(4, true) & FLAG_TOMBSTONE) {
        items.push(Promise.resolve({ key, keyLen, parts: undefined }));
      } else {
        const value = batch.subarray(at + RECORD_HEADER + dv.getUint16(6, true), at + size);
        items.push(this.cipher.sealParts(key, value).then((parts) => ({ key, keyLen, parts })));
      }
      at += size;
    }
    // One copy of each sealed value, straight into the new batch.
    const sealed = await Promise.all(items);
    let total = 0;
    for (const it of sealed) {
      total +=
        RECORD_HEADER + it.keyLen + (it.parts ? it.parts.head.length + it.parts.body.length : 0);
    }
    const out = new Uint8Array(total);
    let pos = 0;
    for (const { key, keyLen, parts } of sealed) {
      if (!parts) {
        encodeRecord(out, pos, key, keyLen, undefined, FLAG_TOMBSTONE, time);
        pos += RECORD_HEADER + keyLen;
        continue;
      }
      const dataLen = parts.head.length + parts.body.length;
      encodeRecord(out, pos, key, keyLen, undefined, FLAG_ENCRYPTED, time);
      new DataView(out.buffer, pos, RECORD_HEADER).setUint32(8, dataLen, true);
      out.set(parts.head, pos + RECORD_HEADER + keyLen);
      out.set(parts.body, pos + RECORD_HEADER + keyLen + parts.head.length);
      pos += RECORD_HEADER + keyLen + dataLen;
    }
    return out;
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
  ): Promise<Uint8Array | undefined> {
    const { value, keyIndex } = await this.cipher.open(key, sealed);
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
