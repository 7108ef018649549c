import {
  createCachedDataset,
  type Dataset,
  flushMicrotasks,
  fromLoader,
  ManualClock,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

describe("cacheType 'both': one engine for cache and prefetch", () => {
  it('prefetched samples land in the cache when read, and prefetch skips cached samples', async () => {
    const src = new ScriptedSource(20);
    const ds = createCachedDataset(src, {
      cacheType: 'both',
      cacheSize: 10,
      prefetchSize: 2,
      numWorkers: 2,
      clock: new ManualClock(),
    });
    ds.setPlan([1, 2, 3, 1, 2, 4, 5]);
    expect(src.pendingIndices()).toEqual([1, 2]);
    src.resolveAll();
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([]); // window of 2 is full (1 and 2 loaded)
    expect((await ds.get(1)).index).toBe(1); // from the buffer into the cache
    src.resolveAll();
    await flushMicrotasks();
    expect((await ds.get(2)).index).toBe(2);
    src.resolveAll();
    await flushMicrotasks();
    expect((await ds.get(3)).index).toBe(3);
    src.resolveAll();
    await flushMicrotasks();
    // 1 and 2 are cached: the prefetcher went straight on to 4 and 5
    expect(src.calls).toEqual([1, 2, 3, 4, 5]);
    expect(ds.get(1)).not.toBeInstanceOf(Promise);
    expect(ds.get(2)).not.toBeInstanceOf(Promise);
    const stats = ds.getCacheStats();
    expect(stats).toMatchObject({ hits: 2, misses: 3, size: 3 });
    expect(stats.prefetch).toMatchObject({ issued: 5, used: 3, buffered: 2, wasted: 0 });
    await ds.close();
  });

  it('a read joins the prefetch in flight instead of loading again', async () => {
    const src = new ScriptedSource(10);
    const clock = new ManualClock();
    const ds = createCachedDataset(src, {
      cacheType: 'both',
      cacheSize: 4,
      prefetchSize: 3,
      clock,
    });
    ds.setPlan([6, 7, 8]);
    const a = ds.get(6);
    const b = ds.get(6);
    await clock.advance(25);
    src.resolve(6);
    expect((await a).index).toBe(6);
    expect((await b).index).toBe(6);
    expect(src.loadsOf(6)).toBe(1);
    const stats = ds.getCacheStats();
    expect(stats.prefetch.used).toBe(1);
    expect(stats.stallMs).toBe(25); // two callers waited the same 25 ms: the stall is 25 ms, not 50
    await ds.close();
  });

  it('loads run through a given executor, which close() leaves to its owner', async () => {
    const ran: number[] = [];
    let closed = false;
    const source: Dataset<number> = fromLoader(5, (i) => i);
    const ds = createCachedDataset(source, {
      cacheType: 'both',
      prefetchSize: 1,
      clock: new ManualClock(),
      executor: {
        run: async (i) => {
          ran.push(i);
          return i * 10;
        },
        close: () => {
          closed = true;
        },
      },
    });
    expect(await ds.get(2)).toBe(20);
    expect(ran[0]).toBe(2);
    await ds.close();
    expect(closed).toBe(false);
  });

  it('a dataset wrapped before it is passed in puts a tier between the engine and the source', async () => {
    const order: string[] = [];
    const source = fromLoader(4, (i) => {
      order.push(`source ${i}`);
      return i;
    });
    const tier: Dataset<number> = {
      length: source.length,
      get: async (i, opts) => {
        order.push(`tier ${i}`);
        return (await source.get(i, opts)) + 100;
      },
    };
    const ds = createCachedDataset(tier, { cacheType: 'lru', clock: new ManualClock() });
    expect(await ds.get(3)).toBe(103);
    expect(ds.get(3)).toBe(103);
    expect(order).toEqual(['tier 3', 'source 3']);
    await ds.close();
  });
});
