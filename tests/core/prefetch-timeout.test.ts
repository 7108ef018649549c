import {
  ClosedError,
  flushMicrotasks,
  fromLoader,
  LoadTimeoutError,
  ManualClock,
  PrefetchDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

describe('nothing waits forever', () => {
  it('a load that never finishes fails its caller with LoadTimeoutError naming the index', async () => {
    const src = new ScriptedSource(10);
    const clock = new ManualClock();
    const ds = new PrefetchDataset(src, {
      prefetchSize: 0,
      numWorkers: 1,
      loadTimeoutMs: 500,
      clock,
    });
    const hung = Promise.resolve(ds.get(3));
    const outcome = hung.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await clock.advance(499);
    expect(await Promise.race([outcome, Promise.resolve('pending')])).toBe('pending');
    await clock.advance(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(LoadTimeoutError);
    expect(error).toMatchObject({ code: 'LOAD_TIMEOUT', index: 3, timeoutMs: 500 });
    expect(String((error as Error).message)).toMatch(/sample 3/);
    expect(src.aborted).toEqual([3]); // the stuck load was aborted, freeing its worker
    const next = ds.get(4);
    expect(src.pendingIndices()).toEqual([4]);
    src.resolve(4);
    expect((await next).index).toBe(4);
    expect(ds.getCacheStats().stallMs).toBe(500);
    await ds.close();
  });

  it('a prefetch that times out keeps the error for the caller of that index, not retried', async () => {
    const src = new ScriptedSource(10);
    const clock = new ManualClock();
    const ds = new PrefetchDataset(src, {
      prefetchSize: 2,
      numWorkers: 2,
      loadTimeoutMs: 100,
      clock,
    });
    ds.setPlan([1, 2]);
    src.resolve(2);
    await clock.advance(100);
    expect(src.loadsOf(1)).toBe(1);
    await expect(Promise.resolve(ds.get(1))).rejects.toMatchObject({
      code: 'LOAD_TIMEOUT',
      index: 1,
    });
    expect((await ds.get(2)).index).toBe(2);
    await ds.close();
  });

  it('a caller queued behind stuck loads is also bounded', async () => {
    const src = new ScriptedSource(10);
    const clock = new ManualClock();
    const ds = new PrefetchDataset(src, {
      prefetchSize: 1,
      numWorkers: 1,
      loadTimeoutMs: 100,
      clock,
    });
    ds.setPlan([0, 5]);
    const later = Promise.resolve(ds.get(5)).catch((e: unknown) => e);
    await clock.advance(100);
    const error = await later;
    expect(error).toBeInstanceOf(LoadTimeoutError);
    expect(error).toMatchObject({ index: 5 });
    await ds.close();
    await flushMicrotasks();
    expect(() => ds.get(0)).toThrow(ClosedError);
  });

  it('a loader that ignores its signal still frees its worker slot at the timeout', async () => {
    const started: number[] = [];
    const stuck = fromLoader(10, (i) => {
      started.push(i);
      return i === 0 ? new Promise<number>(() => {}) : i; // 0 never settles, ignores abort
    });
    const clock = new ManualClock();
    const ds = new PrefetchDataset(stuck, {
      prefetchSize: 0,
      numWorkers: 1,
      loadTimeoutMs: 50,
      clock,
    });
    const first = Promise.resolve(ds.get(0)).catch((e: unknown) => e);
    const second = Promise.resolve(ds.get(1));
    await flushMicrotasks();
    expect(started).toEqual([0]); // 1 waits for the only worker
    await clock.advance(50);
    expect(await first).toMatchObject({ code: 'LOAD_TIMEOUT', index: 0 });
    expect(await second).toBe(1);
    expect(started).toEqual([0, 1]);
    await ds.close();
  });
});
