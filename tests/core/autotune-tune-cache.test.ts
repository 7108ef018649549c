import { fromArray, fromLoader, REFERENCE_CACHE_SIZES, tuneCache } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

function counted(n: number, bytes = 16) {
  const loads = { count: 0 };
  const ds = fromLoader(n, (index) => {
    loads.count++;
    const data = new Uint8Array(bytes);
    data[0] = index;
    return { data };
  });
  return { ds, loads };
}

describe('tuneCache: the reference tuning guide as a function', () => {
  it('applies the sizing rule, sweeps the reference sizes and simulates the plan without loading', async () => {
    const { ds, loads } = counted(5000);
    const result = await tuneCache(ds, { batchSize: 32 });
    expect(loads.count).toBe(0);
    expect(result.referenceCacheSize).toBe(640); // medium data set: batchSize × 20
    expect(result.rows.map((r) => r.cacheSize)).toEqual([100, 500, 640, 1000, 2000, 5000]);
    for (const size of REFERENCE_CACHE_SIZES) {
      expect(result.rows.find((r) => r.cacheSize === size)?.origin).toBe('reference-sweep');
    }
    for (const row of result.rows) {
      expect(row.predictedHitRate).toBeGreaterThanOrEqual(row.lruHitRate);
      expect(row.samplesPerSec).toBeUndefined();
    }
    // two shuffled epochs: only a cache of the whole data set serves the second one
    const whole = result.rows.at(-1)!;
    expect(whole.predictedHitRate).toBeCloseTo(0.5, 5);
    expect(result.rows[0]!.predictedHitRate).toBeLessThan(0.05);
    expect(result.chosen).toEqual({
      cacheType: 'both',
      cacheSize: 5000,
      prefetchSize: 'auto',
      numWorkers: 'auto',
    });
  });

  it('leaves out the sizes maxBytes cannot hold', async () => {
    const { ds } = counted(5000);
    const result = await tuneCache(ds, {
      batchSize: 32,
      maxBytes: 1_500_000,
      sampleBytes: 1000,
    });
    expect(Math.max(...result.rows.map((r) => r.cacheSize))).toBeLessThanOrEqual(1500);
    expect(result.chosen.cacheSize).toBe(1000);
  });

  it('measures the candidates simulation cannot tell apart within budgetMs', async () => {
    const n = 300;
    const plan = Array.from({ length: 3 * n }, (_, p) => p % n);
    const ds = fromArray(Array.from({ length: n }, () => ({ data: new Uint8Array(8) })));
    const result = await tuneCache(ds, { batchSize: 32, budgetMs: 40, plan, candidates: [295] });
    const measured = result.rows.filter((r) => r.samplesPerSec !== undefined);
    expect(measured.map((r) => r.cacheSize)).toEqual([295, 300]);
    for (const r of measured) expect(r.samplesPerSec).toBeGreaterThan(0);
    expect([295, 300]).toContain(result.chosen.cacheSize);
  });

  it('names the bad option', async () => {
    const { ds } = counted(10);
    await expect(tuneCache(ds, { batchSize: 0 })).rejects.toThrow(/batchSize .*0/);
    await expect(tuneCache(ds, { batchSize: 8, budgetMs: -1 })).rejects.toThrow(/budgetMs/);
    await expect(tuneCache(ds, { batchSize: 8, budget: 5 } as never)).rejects.toThrow(/budget/);
  });
});
