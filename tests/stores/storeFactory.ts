// What a store hands the contract (tests/stores/contract.ts): how to open it, and which of the
// contract's promises it makes. A promise a store does not make is declared here with its
// reason ({ unsupported: '…' }), and the contract lists that case as skipped under that reason.

import type { Clock, PersistentStore, StoreUsage } from '@medfusion/core';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Which OpfsStore file backends an engine runs the contract on (vite.config.ts, `stores`):
     * `'auto'` the one `backend: 'auto'` picks there, `'all'` every one it has.
     */
    storeMatrix: 'auto' | 'all';
  }
}

/** A case the store cannot run, and why (shown in the skipped test's name). */
export interface Unsupported {
  unsupported: string;
}

/** A capability, or why the store does not have it. */
export type Capability<T> = T | Unsupported;

/** True when `c` is a capability the store has. */
export function has<T>(c: Capability<T>): c is Exclude<T, Unsupported> {
  return !(typeof c === 'object' && c !== null && 'unsupported' in c);
}

/** Why `c` is missing ('' when present). */
export function why<T>(c: Capability<T>): string {
  return has(c) ? '' : (c as Unsupported).unsupported;
}

/** Options every store under the contract understands (the factory maps them to its own). */
export interface ContractOptions {
  /** Byte budget. */
  maxBytes?: number;
  /** Key to seal with; `null` opens the store without one, also in an encrypted variant. */
  encryptionKey?: unknown;
  /** Older keys that still open records. */
  previousEncryptionKeys?: unknown[];
  /** What to do with records of a previous key. */
  rotation?: 'reencrypt' | 'drop';
  /** Retention in ms. */
  maxAge?: number;
  /** Clock of the retention. */
  clock?: Clock;
  /** A quota smaller than the platform's (the store's own test hook). */
  quotaBytes?: number;
}

/**
 * The options every store shares, from the contract's: those given, and the key to seal with
 * (`o.encryptionKey`, else the variant's; `null`: none). Spread into the store's own options.
 */
export function sharedStoreOptions(o: ContractOptions, variantKey: unknown) {
  const key = o.encryptionKey === null ? undefined : (o.encryptionKey ?? variantKey);
  return {
    ...(o.maxBytes === undefined ? {} : { maxBytes: o.maxBytes }),
    ...(o.quotaBytes === undefined ? {} : { quotaBytes: o.quotaBytes }),
    ...(o.maxAge === undefined ? {} : { maxAge: o.maxAge }),
    ...(o.clock === undefined ? {} : { clock: o.clock }),
    ...(key === undefined ? {} : { encryptionKey: key as CryptoKey }),
    ...(o.previousEncryptionKeys
      ? { previousEncryptionKeys: o.previousEncryptionKeys as CryptoKey[] }
      : {}),
    ...(o.rotation ? { rotation: o.rotation } : {}),
  };
}

/** The contract's view of a store: the interface plus what stores add on top. */
export interface ContractStore extends PersistentStore {
  /** Durable now (OPFS); absent where every write is. */
  flush?(): Promise<void>;
  /** Delete one data set's records. */
  forget?(fingerprint: string): Promise<number>;
  /** Delete every record. */
  forgetAll?(): Promise<number>;
}

/** Kill a store mid-write, as a crashed tab or process would. */
export interface CrashCapability {
  /**
   * Put each key's value (`keyed(key, size)`) at `location`, and kill the writer while the
   * puts run; resolves with the keys whose put had resolved before the kill.
   */
  crashWhileWriting(location: string, keys: string[], size: number): Promise<Set<string>>;
}

/** Encryption at rest. */
export interface EncryptionCapability {
  /** A fresh key, as an app would pass it. */
  newKey(): Promise<unknown>;
  /** A key the store must refuse (e.g. an extractable CryptoKey), if any. */
  refusedKey?(): Promise<unknown>;
}

/** A store's usage with its counters (`corruptDropped`, `undecryptable`, `expired`, …). */
export type Usage = StoreUsage & Partial<Record<string, unknown>>;

/** `s.usage()`, its counters readable by name. */
export const usageOf = async (s: PersistentStore): Promise<Usage> => (await s.usage()) as Usage;

/** One store under the contract. */
export interface StoreFactory {
  /** Shown in the describe block: store and variant. */
  name: string;
  /** A fresh location (directory, database, folder) for one test, removed after it. */
  location(tag: string): string;
  /** Open a store at `location`; bad options throw here (synchronously). */
  open(location: string, options?: ContractOptions): ContractStore;
  /** Remove everything at `location`. */
  remove(location: string): Promise<void>;
  /** The key every open of this variant seals with by default; undefined: a plain variant. */
  variantKey?: unknown;
  /** The code (or error class name) of a put larger than the budget. */
  tooLarge: 'ENTRY_TOO_LARGE' | 'RangeError';
  /** A new instance at the same location finds what an earlier one wrote. */
  persistence: Capability<true>;
  /** Every byte the store keeps at `location` (files, or records read raw), the store closed. */
  raw: Capability<(location: string) => Promise<Uint8Array[]>>;
  /** Damage `key`'s stored value at rest (the store closed). */
  corrupt: Capability<(location: string, key: string) => Promise<void>>;
  /** Kill the writer mid-put. */
  crash: Capability<CrashCapability>;
  /** Two instances open on one location at once. */
  twoInstances: Capability<true>;
  /** `quotaBytes` is honoured: a write past it rejects with QUOTA_EXCEEDED after evicting. */
  quota: Capability<true>;
  /** Encryption at rest (the encrypted variant runs these cases). */
  encryption: Capability<EncryptionCapability>;
  /** `maxAge` and `clock`. */
  retention: Capability<true>;
  /** `forget` and `forgetAll`. */
  forget: Capability<true>;
  /** Bytes the platform counts as used (storage estimate, folder size): forget gives them back. */
  spaceUsed: Capability<(location: string) => Promise<number>>;
  /** The store's documented point after which deleted bytes are gone; close() follows it. */
  compactionPoint(store: ContractStore): Promise<void>;
}

/** A case: its name, the capability it needs (or none), and its body. */
export interface ContractCase {
  name: string;
  /** Why the store cannot run it ('' when it can). */
  skip?: (f: StoreFactory) => string;
  run: (f: StoreFactory, t: ContractContext) => Promise<void>;
}

/** What a case gets: fresh locations, removed after the test, and stores closed after it. */
export interface ContractContext {
  /** A fresh location for this test. */
  location(tag: string): string;
}

/** Skip unless `cap` is present; the reason is the factory's. */
export const needs =
  (...caps: (keyof StoreFactory)[]) =>
  (f: StoreFactory): string => {
    for (const c of caps) if (!has(f[c] as never)) return why(f[c] as never);
    return '';
  };
