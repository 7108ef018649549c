import { createSecretKey, KeyObject, type webcrypto } from 'node:crypto';
import type { RetentionOptions } from '@medfusion/core';
import {
  arrayOf,
  badType,
  checkRetentionOptions,
  nonEmptyString,
  object,
  oneOfValues,
  positiveBytes,
  type RetentionSettings,
  showValue,
  withDefault,
} from '@medfusion/core/internal';

/** A key {@link LmdbStore} seals with: an AES-GCM `CryptoKey`, or a secret `KeyObject` of 16, 24 or 32 bytes. */
export type NodeEncryptionKey = webcrypto.CryptoKey | KeyObject;

/** Options of {@link LmdbStore}. */
export interface LmdbStoreOptions extends RetentionOptions {
  /**
   * Directory of the store's database files (created when missing): the seed's `cache_dir`.
   * @example './cache/xray'
   */
  dir: string;
  /**
   * Byte budget of the stored values; over it the least recently used entries are evicted.
   * @default 1073741824 (1 GiB)
   */
  maxBytes?: number;
  /**
   * Seal every value with AES-GCM (node:crypto) before it reaches the disk, binding the
   * record's store key; the key is never persisted. An AES-GCM `CryptoKey` (as from
   * `crypto.subtle.importKey`) or a secret `KeyObject` (`crypto.createSecretKey`) of 16, 24 or
   * 32 bytes.
   * @default undefined (values are stored plain, each with its checksum)
   */
  encryptionKey?: NodeEncryptionKey;
  /**
   * Older keys that still open records sealed with them (see `rotation`).
   * @default []
   */
  previousEncryptionKeys?: readonly NodeEncryptionKey[];
  /**
   * What a read of a record sealed with a previous key does: `'reencrypt'` returns it and
   * writes it again under `encryptionKey`; `'drop'` deletes it (a miss).
   * @default 'reencrypt'
   */
  rotation?: 'reencrypt' | 'drop';
  /**
   * Pretend the disk holds at most this many bytes of values: a write past it fails as a full
   * disk would (evict, retry once, then StoreError `QUOTA_EXCEEDED`). For testing that path.
   * @default undefined (the disk's own limit)
   */
  quotaBytes?: number;
}

/** The checked options. Internal. */
export interface LmdbSettings {
  dir: string;
  maxBytes: number;
  quotaBytes: number | undefined;
  keys: KeyObject[];
  rotation: 'reencrypt' | 'drop';
  retention: RetentionSettings;
}

/** WebCrypto's CryptoKey class (global in Node 20+; `webcrypto.CryptoKey` is not exported there). */
const CryptoKeyClass = (globalThis as { CryptoKey?: abstract new () => object }).CryptoKey;

function checkKey(name: string, key: unknown): KeyObject {
  let k: KeyObject;
  if (key instanceof KeyObject) k = key;
  else if (CryptoKeyClass !== undefined && key instanceof CryptoKeyClass) {
    const algo = (key as webcrypto.CryptoKey).algorithm as { name?: string };
    if (algo.name !== 'AES-GCM') throw badType(name, 'an AES-GCM CryptoKey', `${algo.name} key`);
    k = KeyObject.from(key as webcrypto.CryptoKey);
  } else throw badType(name, 'a CryptoKey or a secret KeyObject', key);
  if (k.type !== 'secret' || ![16, 24, 32].includes(k.symmetricKeySize ?? 0))
    throw badType(name, 'a key of 16, 24 or 32 bytes', `a ${k.type} key`);
  return createSecretKey(k.export());
}

/** Check {@link LmdbStoreOptions}: TypeError / RangeError naming the option. Internal. */
export function checkLmdbStoreOptions(options: LmdbStoreOptions): LmdbSettings {
  object('options', options, 'an object with a dir');
  const dir = nonEmptyString('dir', options.dir);
  const maxBytes = withDefault('maxBytes', options.maxBytes, 2 ** 30, positiveBytes);
  const quotaBytes = withDefault('quotaBytes', options.quotaBytes, undefined, positiveBytes);
  const previous = withDefault(
    'previousEncryptionKeys',
    options.previousEncryptionKeys,
    [],
    (n, v) => arrayOf(n, v, checkKey, 'an array of keys'),
  );
  const rotation = withDefault('rotation', options.rotation, 'reencrypt', (n, v) =>
    oneOfValues(n, v, ['reencrypt', 'drop'] as const),
  );
  const retention = checkRetentionOptions(options);
  if (options.encryptionKey === undefined) {
    for (const n of ['previousEncryptionKeys', 'rotation'] as const) {
      if (options[n] !== undefined)
        throw new TypeError(`${n} applies only with encryptionKey, got ${showValue(options[n])}`);
    }
    return { dir, maxBytes, quotaBytes, keys: [], rotation, retention };
  }
  const key = checkKey('encryptionKey', options.encryptionKey);
  return { dir, maxBytes, quotaBytes, keys: [key, ...previous], rotation, retention };
}
