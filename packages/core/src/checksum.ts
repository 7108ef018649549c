import { xxHash32 } from 'js-xxhash';

/**
 * A fast 32-bit checksum (xxHash32, seed 0) of `bytes`, as an unsigned
 * integer. Persistent stores keep it next to every entry and compare it on
 * read, so a flipped byte becomes a miss instead of corrupt data.
 *
 * @example
 * const sum = checksum(new Uint8Array([1, 2, 3]));
 */
export function checksum(bytes: Uint8Array): number {
  return xxHash32(bytes, 0) >>> 0;
}
