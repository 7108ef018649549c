import {
  flushMicrotasks,
  LoadError,
  ManualClock,
  MedFusionError,
  PrefetchDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

describe('a failed load reaches the caller of that index', () => {
  it('wraps the loader error in LoadError for that caller only', async () => {
    const src = new ScriptedSource(10);
    const ds = new PrefetchDataset(src, {
      prefetchSize: 0,
      numWorkers: 4,
      clock: new ManualClock(),
    });
    const one = Promise.resolve(ds.get(1));
    const two = Promise.resolve(ds.get(2));
    const twoAgain = Promise.resolve(ds.get(2)); // joins the same load
    const cause = new Error('disk on fire');
    src.reject(2, cause);
    src.resolve(1);
    expect((await one).index).toBe(1);
    for (const p of [two, twoAgain]) {
      const error = await p.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LoadError);
      expect(error).toMatchObject({ code: 'LOAD_FAILED', index: 2, cause });
      expect((error as Error).message).toMatch(/sample 2.*disk on fire/);
    }
    expect(src.loadsOf(2)).toBe(1);
    await ds.close();
  });

  it('passes MedFusionErrors through unwrapped', async () => {
    const src = new ScriptedSource(10);
    const ds = new PrefetchDataset(src, { prefetchSize: 0, clock: new ManualClock() });
    const p = Promise.resolve(ds.get(7));
    const own = new MedFusionError('LOAD_FAILED', 'sample 7 is corrupt', { index: 7 });
    src.reject(7, own);
    await expect(p).rejects.toBe(own);
    await ds.close();
  });

  it('a failed prefetch is retried once, then its error waits for the caller', async () => {
    const src = new ScriptedSource(10);
    const ds = new PrefetchDataset(src, {
      prefetchSize: 3,
      numWorkers: 1,
      clock: new ManualClock(),
    });
    ds.setPlan([4, 8, 9]);
    src.reject(4, new Error('flaky'));
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([4]); // the one retry, before new work
    const last = new Error('still broken');
    src.reject(4, last);
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([8]); // gave up on 4, moved on
    src.resolve(8);
    await flushMicrotasks();
    expect(src.loadsOf(4)).toBe(2);
    await expect(Promise.resolve(ds.get(4))).rejects.toMatchObject({
      code: 'LOAD_FAILED',
      index: 4,
      cause: last,
    });
    expect((await ds.get(8)).index).toBe(8);
    // a new read of 4 is the caller's own retry: a fresh load
    const again = Promise.resolve(ds.get(4));
    expect(src.pendingIndices()).toEqual([9]); // queued behind the prefetch of 9 (1 worker)
    src.resolve(9);
    await flushMicrotasks();
    src.resolve(4);
    expect((await again).index).toBe(4);
    expect(src.loadsOf(4)).toBe(3);
    await ds.close();
  });
});
