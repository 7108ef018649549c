import { createCachedDataset, DataLoader, fromArray, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const samples = Array.from({ length: 60 }, (_, i) => ({ x: new Float32Array([i]), label: i % 2 }));

describe('engine stats per plan', () => {
  it("reports the current plan's own hit rate, which reaches Belady's optimum on epoch 2", async () => {
    const ds = createCachedDataset(fromArray(samples), { cacheType: 'both', cacheSize: 10 });
    const loader = new DataLoader(ds, { batchSize: 8, shuffle: true, seed: 5 });
    for await (const _ of loader) {
      // epoch 1: every read is a first read
    }
    const first = ds.getCacheStats();
    expect(first.planReads).toBe(60);
    expect(first.planLength).toBe(60);
    expect(first.planHitRate).toBe(0);
    for await (const _ of loader) {
      // epoch 2: the plan-aware cache keeps what is read soonest
    }
    const second = ds.getCacheStats();
    expect(second.planReads).toBe(60);
    expect(second.optimalHitRate).toBeGreaterThan(0);
    expect(second.planHitRate).toBeCloseTo(second.optimalHitRate ?? Number.NaN, 10);
    // the cumulative rate mixes both epochs and is lower
    expect(second.hitRate).toBeLessThan(second.planHitRate ?? 0);
    await ds.close();
  });

  it('counts overlapping waits once: stall time is wall time with a reader waiting', async () => {
    const clock = new ManualClock();
    const resolvers: Array<() => void> = [];
    const ds = createCachedDataset(
      {
        length: 4,
        get: (i: number) =>
          new Promise<number>((resolve) => {
            resolvers.push(() => resolve(i));
          }),
      },
      { cacheType: 'both', cacheSize: 4, numWorkers: 4, clock },
    );
    const reads = [ds.get(0), ds.get(1), ds.get(2)];
    await clock.advance(40);
    for (const r of resolvers) r();
    await Promise.all(reads);
    expect(ds.getCacheStats().stallMs).toBe(40);
    await ds.close();
  });
});
