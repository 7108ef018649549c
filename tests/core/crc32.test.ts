// Core's JavaScript CRC-32 (what web's packFiles checks PNG chunks with) gives
// zlib's values: random buffers of every small length and a few large ones.
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32 } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';

describe('crc32 (JavaScript) against zlib', () => {
  it('equals zlib.crc32 on 0..300 bytes and on 1 MiB', () => {
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    };
    for (const n of [...Array.from({ length: 301 }, (_, i) => i), 1 << 20]) {
      const bytes = Uint8Array.from({ length: n }, rand);
      expect(crc32(bytes), `length ${n}`).toBe(zlibCrc32(bytes));
    }
  });
});
