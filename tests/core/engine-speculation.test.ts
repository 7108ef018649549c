import {
  CachingEngine,
  type Dataset,
  type Executor,
  flushMicrotasks,
  type GetOptions,
  ManualClock,
  MemoryStore,
  type RunOptions,
  TieredCachedDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

// The engine tells the queues behind it which loads are speculative (issue
// 18): a prefetch carries a Speculation, a reader's miss none, and a prefetch
// a reader starts waiting for is promoted to demand.

/** A source whose loads stay pending; it keeps the options of each get. */
function recordingSource(length: number) {
  const seen = new Map<number, GetOptions | undefined>();
  const ds: Dataset<number> = {
    length,
    get(index, opts) {
      seen.set(index, opts);
      return new Promise<number>(() => {});
    },
  };
  return { ds, seen };
}

/** A read left pending: close() rejects it with ClosedError, which the test does not await. */
function pending(read: number | Promise<number>): void {
  Promise.resolve(read).catch(() => {});
}

describe('engine: speculation reaches the loads', () => {
  it('marks prefetches speculative and a miss as demand', async () => {
    const { ds, seen } = recordingSource(100);
    const engine = new CachingEngine(ds, {
      cacheSize: 10,
      prefetchSize: 3,
      numWorkers: 8,
      clock: new ManualClock(),
    });
    engine.setPlan([0, 1, 2, 3]);
    await flushMicrotasks();
    expect([...seen.keys()]).toEqual([0, 1, 2]);
    for (const k of [0, 1, 2]) expect(seen.get(k)?.speculation?.speculative).toBe(true);
    pending(engine.get(50)); // not in the plan: a reader's miss
    await flushMicrotasks();
    expect(seen.get(50)?.speculation).toBeUndefined();
    await engine.close();
  });

  it('promotes a prefetch in flight when a reader starts waiting for it', async () => {
    const { ds, seen } = recordingSource(100);
    const engine = new CachingEngine(ds, {
      cacheSize: 10,
      prefetchSize: 3,
      numWorkers: 8,
      clock: new ManualClock(),
    });
    engine.setPlan([0, 1, 2, 3]);
    await flushMicrotasks();
    pending(engine.get(0));
    expect(seen.get(0)?.speculation?.speculative).toBe(false); // a reader waits for it now
    expect(seen.get(1)?.speculation?.speculative).toBe(true);
    await engine.close();
  });

  it("passes it on to the executor of a disk tier's source", async () => {
    const calls: Array<{ index: number; options: RunOptions | undefined }> = [];
    const executor: Executor<number> = {
      run(index, _signal, _input, options) {
        calls.push({ index, options });
        return new Promise<number>(() => {});
      },
    };
    const tiered = new TieredCachedDataset(recordingSource(100).ds, {
      store: new MemoryStore(),
      executor,
      cacheSize: 10,
      prefetchSize: 2,
      numWorkers: 8,
      clock: new ManualClock(),
    });
    tiered.setPlan([0, 1, 2]);
    pending(tiered.get(70));
    // the disk tier looks in the store first, then calls the executor
    await expect.poll(() => calls.length).toBe(3);
    const byIndex = new Map(calls.map((c) => [c.index, c.options?.speculation?.speculative]));
    expect(byIndex).toEqual(
      new Map([
        [0, true],
        [1, true],
        [70, undefined],
      ]),
    );
    pending(tiered.get(1));
    expect(calls.find((c) => c.index === 1)?.options?.speculation?.speculative).toBe(false);
    await tiered.close();
  });
});
