import { checksum } from '@medfusion/core';
import fc from 'fast-check';
import { xxHash32 } from 'js-xxhash';
import { describe, expect, it } from 'vitest';

describe('checksum (xxHash32, seed 0)', () => {
  it('equals the js-xxhash reference for any bytes at any alignment', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 0, max: 3 }),
        (data, off) => {
          const buf = new Uint8Array(data.length + off);
          buf.set(data, off);
          const view = buf.subarray(off);
          expect(checksum(view)).toBe(xxHash32(view, 0) >>> 0);
        },
      ),
      { numRuns: 500 },
    );
    const big = new Uint8Array(150 * 1024).map((_, i) => (i * 31) & 0xff);
    expect(checksum(big)).toBe(xxHash32(big, 0) >>> 0);
    expect(checksum(new Uint8Array(0))).toBe(0x02cc5d05);
  });

  it('tells one flipped bit apart', () => {
    const bytes = new Uint8Array(1000).map((_, i) => i * 31);
    const before = checksum(bytes);
    bytes[500]! ^= 1;
    expect(checksum(bytes)).not.toBe(before);
  });
});
