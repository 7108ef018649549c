import { type EngineStats, formatCacheReport } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

function stats(hits: number, misses: number, extra: Partial<EngineStats> = {}): EngineStats {
  return {
    hits,
    misses,
    hitRate: hits + misses === 0 ? 0 : hits / (hits + misses),
    size: 800,
    capacity: 1000,
    evictions: 12,
    bytes: 3 * 1024 * 1024,
    maxBytes: undefined,
    loads: misses,
    inFlight: 0,
    rejected: 0,
    prefetch: { issued: 40, used: 30, wasted: 2, inFlight: 1, buffered: 3 },
    stallMs: 1500,
    planHitRate: undefined,
    planReads: 0,
    planLength: 0,
    optimalHitRate: undefined,
    peakBytes: 4 * 1024 * 1024,
    evictionPolicy: 'lru',
    ...extra,
  };
}

describe('formatCacheReport: the per-epoch report with the reference advice', () => {
  it('shows hit rate and size/capacity, and calls a hit rate above 70 % effective', () => {
    const report = formatCacheReport(stats(750, 250));
    expect(report).toMatch(/hit rate 75\.0 % \(750 hits, 250 misses\), size 800\/1000/);
    expect(report).toMatch(/cache effective/);
    expect(report).not.toMatch(/warning/);
    expect(report).toMatch(/prefetch: 40 issued, 30 used, 2 wasted/);
    expect(report).toMatch(/readers stalled 1\.50 s/);
  });

  it('warns below 30 % and says what to change', () => {
    const report = formatCacheReport(stats(20, 80));
    expect(report).toMatch(/warning: hit rate below 30 %/);
    expect(report).toMatch(/cacheSize/);
    expect(report).toMatch(/disk tier/);
    expect(report).not.toMatch(/effective/);
  });

  it('between 30 % and 70 % neither praises nor warns', () => {
    const report = formatCacheReport(stats(50, 50));
    expect(report).not.toMatch(/warning|effective/);
  });

  it('uses the optimum: when even Belady is low it says the cache cannot help; a gap suggests Belady', () => {
    const hopeless = formatCacheReport(stats(5, 95, { optimalHitRate: 0.1 }));
    expect(hopeless).toMatch(/optimal for this plan at this size \(Belady\): 10\.0 %/);
    expect(hopeless).toMatch(/no cache of 1000 samples can reach more than 10\.0 %/);
    expect(hopeless).toMatch(/prefetch/);
    const planDone = { optimalHitRate: 0.55, planHitRate: 0.4, planReads: 100, planLength: 100 };
    const gap = formatCacheReport(stats(40, 60, planDone));
    expect(gap).toMatch(/this plan's hit rate is 15\.0 % below the optimum/);
    expect(gap).toMatch(/evictionPolicy 'belady'/);
  });

  it("compares the optimum with the current plan's own reads, once they are all made", () => {
    // epoch 1 (all misses) + epoch 2 at Belady's rate: the cumulative rate is half the optimum
    const epoch2 = { optimalHitRate: 1 / 6, planHitRate: 1 / 6, planReads: 600, planLength: 600 };
    expect(formatCacheReport(stats(100, 1100, epoch2))).not.toMatch(/below the optimum/);
    const halfway = { optimalHitRate: 0.55, planHitRate: 0.1, planReads: 50, planLength: 100 };
    expect(formatCacheReport(stats(5, 45, halfway))).not.toMatch(/below the optimum/);
  });

  it('works on plain CacheStats and rejects non-stats', () => {
    const {
      prefetch: _p,
      stallMs: _s,
      planHitRate: _h,
      planReads: _r,
      planLength: _l,
      optimalHitRate: _o,
      peakBytes: _b,
      ...plain
    } = stats(0, 0);
    expect(formatCacheReport(plain)).toMatch(/no reads yet/);
    expect(() => formatCacheReport({} as never)).toThrow(TypeError);
  });
});
