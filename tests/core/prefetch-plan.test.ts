import { flushMicrotasks, ManualClock, PrefetchDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

describe('PrefetchDataset follows the plan', () => {
  it('loads the next planned samples in plan order, at most numWorkers at once', async () => {
    const src = new ScriptedSource(20);
    const ds = new PrefetchDataset(src, {
      prefetchSize: 4,
      numWorkers: 2,
      clock: new ManualClock(),
    });
    ds.setPlan([7, 3, 12, 0, 5, 9, 1]);
    expect(src.pendingIndices()).toEqual([7, 3]);
    src.resolve(7);
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([3, 12]);
    src.resolve(3);
    src.resolve(12);
    await flushMicrotasks();
    // window of 4: 7, 3, 12 loaded and 0 loading; nothing more until a read frees a slot
    expect(src.pendingIndices()).toEqual([0]);
    const seven = await ds.get(7);
    expect(seven.index).toBe(7);
    expect(src.pendingIndices()).toEqual([0, 5]);
    expect(src.calls).toEqual([7, 3, 12, 0, 5]);
    const stats = ds.getCacheStats();
    expect(stats.prefetch).toMatchObject({
      issued: 5,
      used: 1,
      wasted: 0,
      inFlight: 2,
      buffered: 2,
    });
    await ds.close();
  });

  it('a read of a prefetched sample starts no load, and reads in plan order never stall', async () => {
    const src = new ScriptedSource(50);
    const clock = new ManualClock();
    const ds = new PrefetchDataset(src, { prefetchSize: 6, numWorkers: 3, clock });
    const plan = [5, 9, 2, 40, 33, 1, 0, 17, 8, 21];
    ds.setPlan(plan);
    for (const i of plan) {
      src.resolveAll();
      await flushMicrotasks();
      const loadsBefore = src.calls.length;
      const got = ds.get(i);
      // ready in the buffer: served synchronously, without a new load of i
      expect(got).not.toBeInstanceOf(Promise);
      expect((got as { index: number }).index).toBe(i);
      expect(src.calls.slice(loadsBefore)).not.toContain(i);
    }
    expect(src.calls).toEqual(plan);
    const stats = ds.getCacheStats();
    expect(stats.stallMs).toBe(0);
    expect(stats.prefetch.used).toBe(plan.length);
    expect(stats.misses).toBe(plan.length); // a prefetched read is a load, not a cache hit
    await ds.close();
  });
});
