import { OriginLimiter, RangeReader, Speculation } from '@medfusion/web';
import { describe, expect, it } from 'vitest';

// Issue 18's ordering rule at the request slots of an origin: a request a
// reader waits for (demand) gets a freed slot before every speculative one.

const ORIGIN = 'http://a.test';
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('OriginLimiter: demand before speculation', () => {
  it('gives the freed slot to a demand request while 10 speculative ones wait', async () => {
    const limiter = new OriginLimiter(1);
    const order: string[] = [];
    const held = await limiter.acquire(ORIGIN);
    const take = (name: string, speculation?: Speculation) =>
      limiter.acquire(ORIGIN, undefined, speculation).then((release) => {
        order.push(name);
        release(); // each passes the slot on at once
      });
    const waits = Array.from({ length: 10 }, (_, i) => take(`p${i}`, new Speculation()));
    waits.push(take('demand'));
    await tick();
    expect(order).toEqual([]); // the slot is held
    held();
    await Promise.all(waits);
    expect(order).toEqual(['demand', 'p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
    expect(limiter.active(ORIGIN)).toBe(0);
  });

  it('treats a promoted speculative request as demand', async () => {
    const limiter = new OriginLimiter(1);
    const order: number[] = [];
    const held = await limiter.acquire(ORIGIN);
    const speculations = Array.from({ length: 5 }, () => new Speculation());
    const waits = speculations.map((s, i) =>
      limiter.acquire(ORIGIN, undefined, s).then((release) => {
        order.push(i);
        release();
      }),
    );
    speculations[3]?.promote();
    held();
    await Promise.all(waits);
    expect(order).toEqual([3, 0, 1, 2, 4]);
  });
});

describe('RangeReader: demand before speculation', () => {
  it("sends a demand read's request before 10 queued speculative reads", async () => {
    const size = 1000;
    const requested: string[] = [];
    let unblock: (() => void) | undefined;
    // a server answering each range at once, except the first, which waits for unblock()
    const fetchStub: typeof fetch = async (_url, init) => {
      const range = new Headers(init?.headers).get('Range') ?? '';
      requested.push(range);
      if (requested.length === 1) await new Promise<void>((resolve) => (unblock = resolve));
      const [start, end] = (/bytes=(\d+)-(\d+)/.exec(range) ?? []).slice(1).map(Number);
      return new Response(new Uint8Array((end as number) - (start as number) + 1), {
        status: 206,
        headers: { 'Content-Range': `bytes ${start}-${end}/${size}`, ETag: '"v1"' },
      });
    };
    const reader = new RangeReader({
      url: `${ORIGIN}/shard.tar`,
      fetch: fetchStub,
      limiter: new OriginLimiter(1),
    });
    const first = reader.read(0, 10); // holds the origin's one slot
    await tick();
    const prefetches = Array.from({ length: 10 }, (_, i) =>
      reader.read(100 + i * 10, 110 + i * 10, { speculation: new Speculation() }),
    );
    const demand = reader.read(900, 910);
    await tick();
    expect(requested).toEqual(['bytes=0-9']);
    unblock?.();
    await Promise.all([first, demand, ...prefetches]);
    expect(requested[1]).toBe('bytes=900-909'); // the reader's request, before the ten prefetches
    expect(requested.slice(2)).toEqual(
      Array.from({ length: 10 }, (_, i) => `bytes=${100 + i * 10}-${109 + i * 10}`),
    );
  });
});
