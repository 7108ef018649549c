// RangeReader.readPieces: one request for a range, handed out as a buffer of its own per
// piece (the bytes between pieces dropped). Truth: the GNU tar shard fetched whole.
import { RangeReader } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS } from '../fixtures-shards/fixtures.js';

const { nginx, flaky } = inject('shardServers');
const name = GNU_SHARDS[1].name;

async function whole(): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${nginx}${name}`)).arrayBuffer());
}

describe('RangeReader.readPieces', () => {
  it('returns each piece exact, in a buffer of exactly its length, from one request', async () => {
    const file = await whole();
    const reader = new RangeReader({ url: `${nginx}${name}` });
    // pieces straddling the server's chunks, touching each other, one byte long, ending the range
    const pieces = [
      { start: 100, end: 101 },
      { start: 700, end: 5000 },
      { start: 5000, end: 5001 },
      { start: 9000, end: file.length - 7 },
    ];
    const got = await reader.readPieces(100, file.length - 7, pieces);
    expect(reader.requests).toBe(1);
    expect(got).toHaveLength(pieces.length);
    for (const [k, p] of pieces.entries()) {
      const bytes = got[k] as Uint8Array;
      expect(bytes).toEqual(file.subarray(p.start, p.end));
      expect(bytes.byteOffset).toBe(0);
      expect(bytes.buffer.byteLength).toBe(p.end - p.start);
    }
  });

  it('is retried through a server that fails 20 % of requests, and stays exact', async () => {
    const file = await whole();
    const reader = new RangeReader({
      url: `${flaky}pieces-1/${name}`,
      retry: { baseDelayMs: 5, maxDelayMs: 50, retries: 8 },
    });
    for (let at = 0; at + 4096 <= file.length; at += 4096) {
      const pieces = [
        { start: at + 10, end: at + 1000 },
        { start: at + 3000, end: at + 4096 },
      ];
      const [a, b] = await reader.readPieces(at, at + 4096, pieces);
      expect(a).toEqual(file.subarray(at + 10, at + 1000));
      expect(b).toEqual(file.subarray(at + 3000, at + 4096));
    }
  });

  it('refuses pieces out of order, overlapping or outside the range before any request', () => {
    const reader = new RangeReader({ url: `${nginx}${name}` });
    const bad: [unknown, RegExp][] = [
      [
        [
          { start: 10, end: 20 },
          { start: 15, end: 30 },
        ],
        /pieces\[1\].*got \{"start":15,"end":30\}|pieces\[1\]/,
      ],
      [
        [
          { start: 20, end: 30 },
          { start: 10, end: 15 },
        ],
        /pieces\[1\]/,
      ],
      [[{ start: 0, end: 20 }], /pieces\[0\]/],
      [[{ start: 10, end: 10 }], /pieces\[0\]/],
      [[{ start: 10, end: 101 }], /pieces\[0\].*<= 100/],
      [[{ start: 10.5, end: 20 }], /pieces\[0\]/],
    ];
    for (const [pieces, message] of bad) {
      expect(() => reader.readPieces(5, 100, pieces as { start: number; end: number }[])).toThrow(
        RangeError,
      );
      expect(() => reader.readPieces(5, 100, pieces as { start: number; end: number }[])).toThrow(
        message,
      );
    }
    expect(() => reader.readPieces(5, 100, 'all' as never)).toThrow(TypeError);
    expect(() => reader.readPieces(5, 100, 'all' as never)).toThrow(/pieces must be an array/);
    expect(reader.requests).toBe(0);
  });
});
