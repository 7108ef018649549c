import { createCachedDataset, DataLoader, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { type Sample, TimedSource } from './autotune-fixtures.js';

describe("numWorkers / prefetchSize 'auto' behind a DataLoader's look-ahead", () => {
  it('climbs while the look-ahead waits, before the first batch is complete', async () => {
    const clock = new ManualClock();
    const src = new TimedSource(2000, clock);
    src.latencyMs = 10;
    const ds = createCachedDataset(src, { cacheType: 'prefetch', clock }); // 'auto' by default
    // three batches of 32 gets outstanding at once: the reader then waits and reads nothing
    // more until its first batch is complete (at 4 loads in flight, 8 load latencies)
    const loader = new DataLoader<Sample, Sample[]>(ds, {
      batchSize: 32,
      prefetchBatches: 2,
      collate: (samples) => [...samples],
    });
    const it = loader[Symbol.asyncIterator]();
    let done = false;
    const first = it.next().then((r) => {
      done = true;
      return r;
    });
    await clock.advance(0);
    while (!done) await clock.advance(1);
    const batch = (await first).value ?? [];
    expect(batch.map((s: Sample) => s.index)).toEqual(Array.from({ length: 32 }, (_, i) => i));
    // the tuner decided on finished loads, not only on reads: the first batch
    // took a few latencies, and the look-ahead's 96 gets ran nearly all at once
    expect(ds.getCacheStats().tuning!.numWorkers).toBeGreaterThanOrEqual(64);
    expect(src.maxActive).toBeGreaterThanOrEqual(64);
    expect(clock.now()).toBeLessThanOrEqual(40);
    await it.return?.();
    await ds.close();
  });
});
