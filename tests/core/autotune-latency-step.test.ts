import { createCachedDataset, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { run, TimedSource } from './autotune-fixtures.js';

const order = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("numWorkers / prefetchSize 'auto': the online controller", () => {
  it('reacts within a few batches when the load latency steps from 5 ms to 100 ms', async () => {
    const clock = new ManualClock();
    const src = new TimedSource(3000, clock);
    const ds = createCachedDataset(src, { cacheType: 'prefetch', clock }); // 'auto' by default
    ds.setPlan(order(src.length));
    // consumer: 4 ms per sample; 5 ms loads need ~2 in flight (Little's law)
    const before = await run(ds, clock, 0, 1000, 4);
    const calm = ds.getCacheStats().tuning!;
    expect(calm.autoNumWorkers).toBe(true);
    expect(calm.numWorkers).toBeLessThanOrEqual(6);
    expect(before).toBeLessThan(0.1);
    src.latencyMs = 100; // now ~25 loads must be in flight to keep up
    await run(ds, clock, 1000, 1160, 4); // five batches of 32
    const reacted = ds.getCacheStats().tuning!;
    expect(reacted.numWorkers).toBeGreaterThanOrEqual(25);
    expect(reacted.prefetchSize).toBeGreaterThanOrEqual(reacted.numWorkers);
    expect(reacted.latencyEstimateMs).toBeGreaterThan(50);
    await run(ds, clock, 1160, 1500, 4);
    const after = await run(ds, clock, 1500, 3000, 4);
    expect(after).toBeLessThan(0.1);
    await ds.close();
  });

  it('backs off when the consumer is the bottleneck', async () => {
    const clock = new ManualClock();
    const src = new TimedSource(600, clock);
    const ds = createCachedDataset(src, { cacheType: 'both', cacheSize: 50, clock });
    ds.setPlan(order(src.length));
    const stall = await run(ds, clock, 0, 600, 20); // 20 ms per step, 5 ms loads
    const t = ds.getCacheStats().tuning!;
    expect(t.numWorkers).toBeLessThanOrEqual(2);
    expect(t.prefetchSize).toBeLessThanOrEqual(4);
    expect(stall).toBeLessThan(0.05);
    await ds.close();
  });

  it('never holds more than maxBytes, however deep it would like to prefetch', async () => {
    const clock = new ManualClock();
    const src = new TimedSource(800, clock);
    src.latencyMs = 50;
    const maxBytes = 20 * 100; // 20 samples
    const ds = createCachedDataset(src, { cacheType: 'both', cacheSize: 10, maxBytes, clock });
    ds.setPlan(order(src.length));
    await run(ds, clock, 0, 800, 0); // a consumer that wants everything at once
    const stats = ds.getCacheStats();
    expect(stats.peakBytes).toBeLessThanOrEqual(maxBytes);
    expect(stats.tuning!.prefetchSize).toBeLessThanOrEqual(10);
    await ds.close();
  });

  it('explicit numbers mean exactly what they say', async () => {
    const clock = new ManualClock();
    const src = new TimedSource(400, clock);
    src.latencyMs = 100;
    const ds = createCachedDataset(src, {
      cacheType: 'prefetch',
      prefetchSize: 10,
      numWorkers: 2,
      clock,
    });
    ds.setPlan(order(src.length));
    await run(ds, clock, 0, 200, 0);
    const t = ds.getCacheStats().tuning!;
    expect(t).toMatchObject({
      numWorkers: 2,
      prefetchSize: 10,
      autoNumWorkers: false,
      autoPrefetchSize: false,
    });
    expect(src.maxActive).toBeLessThanOrEqual(2);
    await ds.close();
  });
});
