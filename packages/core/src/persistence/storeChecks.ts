import { badType, showValue } from '../util/validate.js';
import type { PersistentStore } from './PersistentStore.js';

/** `value` must be a {@link PersistentStore} (an object with `get` and `put`): a TypeError naming `name` otherwise. */
export function checkPersistentStore(name: string, value: unknown): PersistentStore {
  const s = value as Partial<PersistentStore> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.get !== 'function' ||
    typeof s.put !== 'function'
  ) {
    throw badType(name, 'a PersistentStore', value);
  }
  return s as PersistentStore;
}

/** A store key must be a non-empty string (TypeError / RangeError naming `name` and the value). */
export function checkStoreKey(key: unknown, name = 'key'): string {
  if (typeof key !== 'string')
    throw new TypeError(`${name} must be a string, got ${showValue(key)}`);
  if (key.length === 0) throw new RangeError(`${name} must be a non-empty string, got ""`);
  return key;
}

/** A store value must be a Uint8Array (TypeError naming `name` and the value). */
export function checkStoreValue(value: unknown, name = 'value'): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`${name} must be a Uint8Array, got ${showValue(value)}`);
  }
  return value;
}

/**
 * True for the platform's QuotaExceededError and for any error with code
 * `QUOTA_EXCEEDED` (e.g. web's StoreError), also after a worker hop.
 */
export function isQuotaError(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown } | null | undefined;
  return e?.name === 'QuotaExceededError' || e?.code === 'QUOTA_EXCEEDED';
}
