import { checksum } from '@medfusion/core';
import { createXXHash64, type IHasher } from 'hash-wasm';

/**
 * Added to the low 32 bits of a value's xxHash64 to make its checksum: a
 * checksum at or above it names xxHash64, one below it xxHash32.
 */
export const XXH64_TAG = 2 ** 32;

/**
 * The checksum a store seals each value with and checks it against on read
 * (web-internal). A checksum names its algorithm: below 2^32 it is
 * xxHash32 (core's {@link checksum}, JavaScript: every entry written before
 * 2026-12-03 carries it, and it is the fallback), 2^32 + h when h is the low
 * 32 bits of xxHash64 computed by hash-wasm's WebAssembly, which is faster on
 * large values (150 KB: 22 against 31 µs in Chromium's OPFS worker, 16
 * against 37–50 µs in Node 20).
 * Entries keep their algorithm, so older ones still verify.
 *
 * WebAssembly must be compiled before the first use, so a store loads it when it
 * opens ({@link ValueChecksum.load}); the stores of one thread share one hasher
 * (one WebAssembly memory: a hasher per store, kept alive by ~130 store objects
 * in a page, exhausted V8's address space for WebAssembly memories, and every later
 * `WebAssembly.instantiate` on the page failed). A page whose Content Security
 * Policy refuses WebAssembly gets the xxHash32 instance, and reads an xxHash64
 * entry as a miss (it cannot check it) instead of trusting it.
 */
export class ValueChecksum {
  private constructor(private readonly xxh64: IHasher | undefined) {}

  /**
   * An instance that seals with xxHash64 when `webAssembly` is true and this
   * thread may compile WebAssembly, else with xxHash32. Never rejects.
   */
  static async load(webAssembly: boolean): Promise<ValueChecksum> {
    if (!webAssembly) return new ValueChecksum(undefined);
    threadHasher ??= createXXHash64();
    const hasher = threadHasher;
    try {
      return new ValueChecksum(await hasher);
    } catch {
      // No WebAssembly here (a CSP without 'wasm-unsafe-eval', or none at all): the next
      // store tries again.
      if (threadHasher === hasher) threadHasher = undefined;
      return new ValueChecksum(undefined);
    }
  }

  /** The algorithm {@link of} seals with. */
  get algorithm(): 'xxh64' | 'xxh32' {
    return this.xxh64 ? 'xxh64' : 'xxh32';
  }

  /** The checksum of `bytes` with this instance's algorithm. */
  of(bytes: Uint8Array): number {
    return this.xxh64 ? XXH64_TAG + low32(this.xxh64, bytes) : checksum(bytes);
  }

  /**
   * Whether `bytes` have the checksum `sum`; false as well when `sum` names
   * xxHash64 and this instance cannot compute it.
   */
  matches(bytes: Uint8Array, sum: number): boolean {
    if (sum < XXH64_TAG) return checksum(bytes) === sum;
    return this.xxh64 !== undefined && XXH64_TAG + low32(this.xxh64, bytes) === sum;
  }
}

/**
 * This thread's xxHash64 hasher, shared by every store here: each use is one synchronous
 * init/update/digest (see {@link low32}), so no two uses interleave.
 */
let threadHasher: Promise<IHasher> | undefined;

/** The low 32 bits of the xxHash64 (seed 0) of `bytes` (the digest is big-endian). */
function low32(hasher: IHasher, bytes: Uint8Array): number {
  const d = hasher.init().update(bytes).digest('binary');
  return ((d[4]! << 24) | (d[5]! << 16) | (d[6]! << 8) | d[7]!) >>> 0;
}
