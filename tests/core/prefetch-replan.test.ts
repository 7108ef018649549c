import { flushMicrotasks, ManualClock, PrefetchDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

describe('a new plan replaces the old one mid-epoch', () => {
  it('aborts prefetches the new plan does not need soon and keeps those it does', async () => {
    const src = new ScriptedSource(100);
    const ds = new PrefetchDataset(src, {
      prefetchSize: 4,
      numWorkers: 4,
      clock: new ManualClock(),
    });
    ds.setPlan([10, 11, 12, 13, 14, 15]);
    expect(src.pendingIndices()).toEqual([10, 11, 12, 13]);
    src.resolve(10);
    src.resolve(11);
    await flushMicrotasks();
    ds.setPlan([12, 50, 10, 51, 52, 53, 54, 55, 56, 11]);
    // 12 (loading) and 10 (loaded) are needed soon: kept. 13 is not in the plan: aborted.
    // 11 is needed only at the end: dropped from the buffer.
    expect(src.aborted).toEqual([13]);
    expect(src.pendingIndices()).toEqual([12, 50, 51]);
    const stats = ds.getCacheStats();
    expect(stats.prefetch.wasted).toBe(2);
    expect(stats.prefetch.buffered).toBe(1);
    const loads = src.calls.length;
    src.resolveAll();
    await flushMicrotasks();
    expect((await ds.get(12)).index).toBe(12);
    expect((await ds.get(50)).index).toBe(50);
    expect(ds.get(10)).not.toBeInstanceOf(Promise); // the kept prefetch served it
    expect(src.calls.slice(loads)).not.toContain(10);
    await ds.close();
  });
});
