// The key and value checks live once, in core (MemoryStore uses them too).
export { checkStoreKey, checkStoreValue } from '@medfusion/core/internal';

import { showValue } from '@medfusion/core/internal';

/** A byte budget must be a positive integer. */
export function checkMaxBytes(name: string, value: unknown): number {
  if (typeof value !== 'number')
    throw new TypeError(`${name} must be a positive number of bytes, got ${showValue(value)}`);
  if (!Number.isFinite(value) || value < 1) {
    throw new RangeError(`${name} must be a positive number of bytes, got ${showValue(value)}`);
  }
  return Math.floor(value);
}
