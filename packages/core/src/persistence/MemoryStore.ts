import { ClosedError } from '../errors.js';
import { badRange, badType, optionsBag, showValue, withDefault } from '../util/validate.js';
import type { PersistentStore, StoreUsage, StoreValue } from './PersistentStore.js';
import { checkStoreKey, checkStoreValue } from './storeChecks.js';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Byte budget; over it the least recently used entries are dropped.
   * @default Infinity
   */
  maxBytes?: number;
}

/**
 * A {@link PersistentStore} held in memory: for tests, Node, and as a
 * stand-in where no browser storage exists. Values are copied in and out, so
 * callers can never alias stored bytes. Least recently used entries go first
 * when `maxBytes` is set.
 *
 * @example
 * const store = new MemoryStore({ maxBytes: 64 * 2 ** 20 });
 * await store.put('a', new Uint8Array([1, 2]));
 * await store.get('a'); // Uint8Array [1, 2]
 */
export class MemoryStore implements PersistentStore {
  private readonly map = new Map<string, Uint8Array>();
  private bytes = 0;
  private closed = false;
  /** The byte budget. */
  readonly maxBytes: number;

  constructor(options: MemoryStoreOptions = {}) {
    optionsBag('options', options);
    this.maxBytes = withDefault('maxBytes', options.maxBytes, Number.POSITIVE_INFINITY, (n, v) => {
      if (typeof v !== 'number') throw badType(n, 'a positive number', v);
      if (!(v > 0)) throw badRange(n, 'a positive number', v);
      return v;
    });
  }

  private check(key: unknown): void {
    if (this.closed) throw new ClosedError('MemoryStore');
    checkStoreKey(key);
  }

  /** The value stored under `key` (a copy), or `undefined`; marks it recently used. */
  async get(key: string): Promise<StoreValue | undefined> {
    this.check(key);
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v.slice();
  }

  /** Store a copy of `value` under `key`, evicting the least recently used entries over `maxBytes`. */
  async put(key: string, value: StoreValue): Promise<void> {
    this.check(key);
    checkStoreValue(value);
    if (value.byteLength > this.maxBytes) {
      throw new RangeError(
        `value for key ${showValue(key)} is ${value.byteLength} bytes, more than maxBytes ${this.maxBytes}`,
      );
    }
    this.remove(key);
    while (this.bytes + value.byteLength > this.maxBytes) {
      const oldest = this.map.keys().next().value as string;
      this.remove(oldest);
    }
    this.map.set(key, value.slice());
    this.bytes += value.byteLength;
  }

  private remove(key: string): boolean {
    const old = this.map.get(key);
    if (old === undefined) return false;
    this.map.delete(key);
    this.bytes -= old.byteLength;
    return true;
  }

  /** Remove `key`; true when it was there. */
  async delete(key: string): Promise<boolean> {
    this.check(key);
    return this.remove(key);
  }

  /** True when `key` is stored. */
  async has(key: string): Promise<boolean> {
    this.check(key);
    return this.map.has(key);
  }

  /** Every stored key, least recently used first. */
  async keys(): Promise<string[]> {
    if (this.closed) throw new ClosedError('MemoryStore');
    return [...this.map.keys()];
  }

  /** Remove every entry. */
  async clear(): Promise<void> {
    if (this.closed) throw new ClosedError('MemoryStore');
    this.map.clear();
    this.bytes = 0;
  }

  /** Bytes and entries held, and the `maxBytes` budget when there is one. */
  async usage(): Promise<StoreUsage> {
    if (this.closed) throw new ClosedError('MemoryStore');
    const u: StoreUsage = { bytes: this.bytes, entries: this.map.size };
    if (Number.isFinite(this.maxBytes)) u.maxBytes = this.maxBytes;
    return u;
  }

  /** Drop every entry; later calls throw {@link ClosedError}. */
  async close(): Promise<void> {
    this.closed = true;
    this.map.clear();
    this.bytes = 0;
  }
}
