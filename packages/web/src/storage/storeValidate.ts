import { showValue } from '@medfusion/core/internal';

/** A store key must be a non-empty string. */
export function checkStoreKey(key: unknown, name = 'key'): string {
  if (typeof key !== 'string')
    throw new TypeError(`${name} must be a string, got ${showValue(key)}`);
  if (key.length === 0) throw new RangeError(`${name} must be a non-empty string, got ""`);
  return key;
}

/** A store value must be a Uint8Array. */
export function checkStoreValue(value: unknown, name = 'value'): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`${name} must be a Uint8Array, got ${showValue(value)}`);
  }
  return value;
}

/** A byte budget must be a positive integer. */
export function checkMaxBytes(name: string, value: unknown): number {
  if (typeof value !== 'number')
    throw new TypeError(`${name} must be a positive number of bytes, got ${showValue(value)}`);
  if (!Number.isFinite(value) || value < 1) {
    throw new RangeError(`${name} must be a positive number of bytes, got ${showValue(value)}`);
  }
  return Math.floor(value);
}
