import { describe } from '../errors.js';
import type { PersistentStore } from '../persistence/PersistentStore.js';
import { nonNegativeInt, showValue } from '../util/validate.js';

/** Options of {@link Quarantine}. */
export interface QuarantineOptions {
  /**
   * Keep the list here (e.g. the disk tier's OpfsStore or IdbStore), so a
   * later page visit does not fetch these samples again. Without a store the
   * list lives as long as the object.
   */
  store?: PersistentStore;
  /**
   * The store key of the list; name the data set and its version in it.
   * @default 'medfusion:quarantine'
   * @example 'chest-xray@3:quarantine'
   */
  key?: string;
}

/**
 * The indices that failed every retry, which a {@link DataLoader} then skips
 * without loading them (each is still reported as a failure of its epoch,
 * with a `QuarantinedError` and 0 attempts). With a `store` the list is read
 * when the object is made and written after every change, in order; store
 * errors never stop training (they are kept in `lastError`).
 *
 * @example
 * const quarantine = new Quarantine({ store: opfsStore, key: 'xray@1:quarantine' });
 * const loader = new DataLoader(ds, { onError: 'retry', quarantine });
 * await quarantine.ready; // optional: the loader waits for it too
 */
export class Quarantine {
  /** The store key. */
  readonly key: string;
  /** Settles once the stored list was read (never rejects). */
  readonly ready: Promise<void>;
  /** The last store error, if any (reading or writing the list). */
  lastError: unknown;
  private readonly set = new Set<number>();
  private readonly store: PersistentStore | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(options: QuarantineOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${showValue(options)}`);
    }
    const { store, key = 'medfusion:quarantine' } = options;
    if (store !== undefined && (store === null || typeof store.put !== 'function')) {
      throw new TypeError(`store must be a PersistentStore, got ${showValue(store)}`);
    }
    if (typeof key !== 'string') throw new TypeError(`key must be a string, got ${showValue(key)}`);
    if (key === '') throw new RangeError('key must be a non-empty string, got ""');
    this.store = store;
    this.key = key;
    this.ready = store === undefined ? Promise.resolve() : this.read(store);
  }

  private async read(store: PersistentStore): Promise<void> {
    try {
      const bytes = await store.get(this.key);
      if (bytes === undefined) return;
      for (const i of decodeList(bytes)) this.set.add(i);
    } catch (error) {
      this.lastError = error;
    }
  }

  /** Whether `index` is in quarantine. */
  has(index: number): boolean {
    return this.set.has(index);
  }

  /** Number of indices in quarantine. */
  get size(): number {
    return this.set.size;
  }

  /** The indices, ascending. */
  indices(): number[] {
    return [...this.set].sort((a, b) => a - b);
  }

  /** Put `index` in quarantine (and persist the list). */
  add(index: number): void {
    nonNegativeInt('index', index);
    if (this.set.has(index)) return;
    this.set.add(index);
    this.changed();
  }

  /** Let `index` be loaded again (e.g. after fixing the file). True when it was there. */
  delete(index: number): boolean {
    const had = this.set.delete(index);
    if (had) this.changed();
    return had;
  }

  /** Empty the list. */
  clear(): void {
    if (this.set.size === 0) return;
    this.set.clear();
    this.changed();
  }

  /** Wait until every change so far is in the store. */
  flush(): Promise<void> {
    return this.writing;
  }

  private changed(): void {
    const store = this.store;
    if (store === undefined || this.dirty) return;
    this.dirty = true;
    // One write per burst of changes, after the stored list was read.
    this.writing = this.writing
      .then(() => this.ready)
      .then(async () => {
        this.dirty = false;
        await store.put(this.key, encodeList(this.indices()));
      })
      .catch((error: unknown) => {
        this.lastError = new Error(`quarantine list not saved: ${describe(error)}`, {
          cause: error,
        });
      });
  }
}

const MAGIC = 0x3151_464d; // 'MFQ1' little-endian

/** The stored form: the magic, then each index as a little-endian uint32. */
function encodeList(indices: number[]): Uint8Array {
  const bytes = new Uint8Array(4 * (indices.length + 1));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  for (let i = 0; i < indices.length; i++) view.setUint32(4 * (i + 1), indices[i]!, true);
  return bytes;
}

function decodeList(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength % 4 !== 0 || bytes.byteLength < 4 || view.getUint32(0, true) !== MAGIC) {
    throw new TypeError(`stored quarantine list is not one (${bytes.byteLength} bytes)`);
  }
  const out: number[] = [];
  for (let o = 4; o < bytes.byteLength; o += 4) out.push(view.getUint32(o, true));
  return out;
}
