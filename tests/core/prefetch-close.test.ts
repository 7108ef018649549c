import {
  ClosedError,
  createCachedDataset,
  flushMicrotasks,
  ManualClock,
  PrefetchDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

describe('close()', () => {
  it('aborts loads in flight through their signal and fails their callers with ClosedError', async () => {
    const src = new ScriptedSource(10);
    const clock = new ManualClock();
    const ds = new PrefetchDataset(src, { prefetchSize: 3, numWorkers: 3, clock });
    ds.setPlan([4, 5, 6, 7]);
    const waiting = ds.get(4);
    expect(src.pendingIndices()).toEqual([4, 5, 6]);
    await ds.close();
    await expect(waiting).rejects.toBeInstanceOf(ClosedError);
    await expect(waiting).rejects.toMatchObject({ code: 'CLOSED' });
    expect(src.aborted.sort()).toEqual([4, 5, 6]);
    expect(src.inFlight).toBe(0);
    expect(clock.pending).toBe(0); // no timer left behind
  });

  it('releases the cache and the prefetch buffer; later gets throw ClosedError', async () => {
    const src = new ScriptedSource(10);
    const ds = createCachedDataset(src, {
      cacheType: 'both',
      cacheSize: 5,
      prefetchSize: 2,
      clock: new ManualClock(),
    });
    ds.setPlan([0, 1, 2, 3]);
    src.resolveAll();
    await flushMicrotasks();
    const first = await ds.get(0);
    expect(first.index).toBe(0);
    src.resolveAll();
    await flushMicrotasks();
    expect(ds.getCacheStats().bytes).toBeGreaterThan(0);
    await ds.close();
    const stats = ds.getCacheStats();
    expect(stats.bytes).toBe(0);
    expect(stats.size).toBe(0);
    expect(() => ds.get(1)).toThrow(ClosedError);
    expect(() => ds.setPlan([1])).toThrow(/closed/);
    await ds.close(); // closing twice is harmless
  });
});
