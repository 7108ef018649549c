import { createCachedDataset, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { run, TimedSource } from './autotune-fixtures.js';

const order = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("numWorkers / prefetchSize 'auto': the slow start", () => {
  it('climbs from its start to 64 loads in flight within a few load latencies', async () => {
    const clock = new ManualClock();
    const src = new TimedSource(2000, clock);
    src.latencyMs = 10;
    const ds = createCachedDataset(src, { cacheType: 'both', cacheSize: 100, clock });
    ds.setPlan(order(src.length));
    const start = ds.getCacheStats().tuning!;
    expect(start.numWorkers).toBeLessThanOrEqual(4);
    // a consumer that does no work: only loads in flight bound the rate
    await run(ds, clock, 0, 120, 0);
    const t = ds.getCacheStats().tuning!;
    expect(t.numWorkers).toBe(64);
    expect(t.prefetchSize).toBeGreaterThanOrEqual(64);
    // 120 reads took at most 8 latencies (16 steps of ×2 every 16 reads would need ~75 ms)
    expect(clock.now()).toBeLessThanOrEqual(80);
    expect(src.maxActive).toBeGreaterThan(32);
    await ds.close();
  });
});
