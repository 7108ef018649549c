import { CachingEngine, flushMicrotasks, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

// The ordering rule of issue 18: a load a reader waits for goes before every
// speculative load that has not started yet.
describe('a demand read goes before queued prefetches', () => {
  function setup() {
    const src = new ScriptedSource(100);
    const clock = new ManualClock();
    // one slot; eleven plan positions ahead are prefetch candidates
    const ds = new CachingEngine(src, {
      cacheSize: 100,
      prefetchSize: 11,
      numWorkers: 1,
      clock,
    });
    return { src, ds, clock };
  }

  it('starts next, while 10 prefetches wait for the slot', async () => {
    const { src, ds } = setup();
    ds.setPlan([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(src.pendingIndices()).toEqual([0]); // the slot holds the first prefetch; 1..10 wait
    const read = ds.get(50); // outside the plan: a demand load, nothing prefetched it
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([0]);
    src.resolve(0);
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([50]); // the reader's load, before prefetches 1..10
    src.resolve(50);
    expect((await read).index).toBe(50);
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([1]); // then speculation resumes in plan order
    await ds.close();
  });

  it('starts next even when a failed prefetch is waiting for its retry', async () => {
    const { src, ds } = setup();
    ds.setPlan([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const read = ds.get(50);
    src.reject(0, new Error('flaky'));
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([50]); // the retry of 0 waits behind the reader
    src.resolve(50);
    expect((await read).index).toBe(50);
    await flushMicrotasks();
    expect(src.pendingIndices()).toEqual([0]);
    await ds.close();
  });
});
