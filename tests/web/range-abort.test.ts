import { OriginLimiter, RangeReader } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');
const url = `${nginx}${GNU_SHARDS[0].name}`;

describe('RangeReader: abort and bad arguments', () => {
  it('rejects with the abort reason, also while waiting for an origin slot', async () => {
    const limiter = new OriginLimiter(1);
    const reader = new RangeReader({ url, limiter });
    const hold = await limiter.acquire(new URL(url).origin);
    const ac = new AbortController();
    const p = reader.read(0, 10, { signal: ac.signal });
    ac.abort(new Error('user left'));
    await expect(p).rejects.toThrow('user left');
    hold();
    expect(await reader.read(0, 10)).toHaveLength(10);
    const already = AbortSignal.abort(new Error('before start'));
    await expect(reader.read(0, 10, { signal: already })).rejects.toThrow('before start');
  });

  it('names bad ranges and URLs', async () => {
    expect(() => new RangeReader({ url: 'not a url' })).toThrow(/url must be an absolute URL/);
    const reader = new RangeReader({ url });
    expect(() => reader.read(-1, 5)).toThrow(/start must be a non-negative integer, got -1/);
    expect(() => reader.read(5, 5)).toThrow(/end must be an integer greater than start 5, got 5/);
    const { size } = await reader.probe();
    expect(() => reader.read(0, size + 1)).toThrow(/past the object's size/);
  });
});
