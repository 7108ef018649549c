import { OriginLimiter, RangeReader } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS } from '../fixtures-shards/fixtures.js';

const { changing, stats } = inject('shardServers');

describe('per-origin concurrency limit', () => {
  it('never has more requests in flight to one origin than the limit', async () => {
    const run = crypto.randomUUID();
    const limiter = new OriginLimiter(2);
    const readers = GNU_SHARDS.map(
      (s) => new RangeReader({ url: `${changing}${run}/1000000/${s.name}`, limiter }),
    );
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (readers[i % 3] as RangeReader).read(i * 100, i * 100 + 100),
      ),
    );
    const s = await (await fetch(`${stats}${run}`)).json();
    expect(s.requests).toBe(24);
    expect(s.maxInFlight).toBeLessThanOrEqual(2);
    expect(s.maxInFlight).toBeGreaterThanOrEqual(1);
    expect(limiter.active(new URL(changing).origin)).toBe(0);
  });

  it('validates the limit and lets aborted waiters leave the queue', async () => {
    expect(() => new OriginLimiter(0)).toThrow(/perOrigin must be a positive integer, got 0/);
    const limiter = new OriginLimiter(1);
    const release = await limiter.acquire('http://a.test');
    const ac = new AbortController();
    const waiting = limiter.acquire('http://a.test', ac.signal);
    ac.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    release();
    expect(limiter.active('http://a.test')).toBe(0);
    const again = await limiter.acquire('http://a.test');
    expect(limiter.active('http://a.test')).toBe(1);
    again();
  });
});
