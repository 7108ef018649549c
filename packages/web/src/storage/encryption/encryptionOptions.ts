import { arrayOf, badType, oneOfValues, showValue, withDefault } from '@medfusion/core/internal';

export type { EncryptionUsage } from '@medfusion/core';

/**
 * Encryption at rest, shared by `OpfsStore`, `IdbStore`,
 * `storeForCacheDir` and `createCachedDataset`: every value is sealed with
 * AES-GCM under the app's key before it reaches the disk.
 */
export interface EncryptionOptions {
  /**
   * Encrypt every value at rest with AES-GCM under this key: a fresh 96-bit
   * nonce per record, the record's store key (sample key with the data set's
   * fingerprint) bound as additional data, so a record moved to another key or
   * store, altered or truncated fails its tag and is a miss (counted in
   * `usage().undecryptable`), never wrong data. A non-extractable AES-GCM
   * `CryptoKey` with `encrypt` and `decrypt` usages (see "Encryption at rest"
   * in docs/persistence.md for getting one); the store never persists it.
   * With a key, plain records are misses; without one, a store holding
   * encrypted records refuses to open (StoreError `ENCRYPTION_KEY_REQUIRED`).
   * @default undefined (values stored as they are)
   */
  encryptionKey?: CryptoKey;
  /**
   * Keys records may still be sealed with (key rotation): a record that
   * `encryptionKey` cannot open but one of these can is handled as
   * `rotation` says. Only with `encryptionKey`.
   * @default []
   */
  previousEncryptionKeys?: readonly CryptoKey[];
  /**
   * What a read does with a record sealed with one of `previousEncryptionKeys`:
   * `'reencrypt'` returns it and writes it again under `encryptionKey`
   * (counted in `usage().reencrypted`); `'drop'` deletes it and reads it as a
   * miss (counted in `usage().previousKeyDropped`).
   * @default 'reencrypt'
   */
  rotation?: 'reencrypt' | 'drop';
}

/** Checked encryption settings, as a store's I/O thread receives them (CryptoKeys clone). Internal. */
export interface EncryptionSettings {
  key: CryptoKey;
  previous: CryptoKey[];
  rotation: 'reencrypt' | 'drop';
}

function checkKey(name: string, key: unknown): CryptoKey {
  if (typeof CryptoKey === 'undefined' || !(key instanceof CryptoKey))
    throw badType(name, 'a CryptoKey', key);
  const algo = key.algorithm as { name?: string };
  if (algo.name !== 'AES-GCM') throw badType(name, 'an AES-GCM CryptoKey', `${algo.name} key`);
  if (key.extractable)
    throw badType(name, 'a non-extractable CryptoKey (extractable: false)', 'an extractable key');
  if (!key.usages.includes('encrypt') || !key.usages.includes('decrypt'))
    throw badType(name, "a CryptoKey with usages ['encrypt', 'decrypt']", key.usages.join(','));
  return key;
}

/**
 * Check the encryption options (TypeError naming the option): the settings,
 * or undefined without `encryptionKey`. Internal.
 */
export function checkEncryptionOptions(o: EncryptionOptions): EncryptionSettings | undefined {
  // each value is checked first: a bad one is refused as bad whether or not it applies
  const previous = withDefault('previousEncryptionKeys', o.previousEncryptionKeys, [], (name, v) =>
    arrayOf(name, v, checkKey, 'an array of CryptoKeys'),
  );
  const rotation = withDefault('rotation', o.rotation, 'reencrypt', (name, v) =>
    oneOfValues(name, v, ['reencrypt', 'drop'] as const),
  );
  if (o.encryptionKey === undefined) {
    for (const name of ['previousEncryptionKeys', 'rotation'] as const) {
      if (o[name] !== undefined) {
        throw new TypeError(`${name} applies only with encryptionKey, got ${showValue(o[name])}`);
      }
    }
    return undefined;
  }
  const key = checkKey('encryptionKey', o.encryptionKey);
  return { key, previous, rotation };
}

/** The encryption options of `o` that are set (for passing them on). Internal. */
export function pickEncryptionOptions(o: EncryptionOptions): EncryptionOptions {
  return {
    ...(o.encryptionKey === undefined ? {} : { encryptionKey: o.encryptionKey }),
    ...(o.previousEncryptionKeys === undefined
      ? {}
      : { previousEncryptionKeys: o.previousEncryptionKeys }),
    ...(o.rotation === undefined ? {} : { rotation: o.rotation }),
  };
}
