import { type EngineStats, formatCacheReport, type TieredCacheStats } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

function engine(hits: number, misses: number, extra: Partial<EngineStats> = {}): EngineStats {
  return {
    hits,
    misses,
    hitRate: hits + misses === 0 ? 0 : hits / (hits + misses),
    size: 1000,
    capacity: 1000,
    evictions: 500,
    bytes: 1024 * 1024,
    maxBytes: undefined,
    loads: misses,
    inFlight: 0,
    rejected: 0,
    prefetch: { issued: 0, used: 0, wasted: 0, inFlight: 0, buffered: 0 },
    stallMs: 0,
    planHitRate: undefined,
    planReads: 0,
    planLength: 0,
    optimalHitRate: undefined,
    peakBytes: 1024 * 1024,
    evictionPolicy: 'lru',
    ...extra,
  };
}

function tiered(e: EngineStats, diskHits: number, diskMisses: number): TieredCacheStats {
  return {
    ...e,
    memoryHits: e.hits,
    diskHits,
    diskMisses,
    disk: {
      diskHits,
      misses: diskMisses,
      diskErrors: 0,
      diskWrites: diskMisses,
      writesDropped: 0,
      writeErrors: 0,
      pendingWrites: 0,
      diskDisabled: false,
      fingerprint: 'set@1',
    },
  };
}

describe('formatCacheReport with a disk tier: memory, disk and source told apart', () => {
  it('splits the reads per tier and gives the disk hit rate of the memory misses', () => {
    const report = formatCacheReport(tiered(engine(100, 900), 900, 0));
    expect(report).toMatch(
      /tiers: memory 100 \(10\.0 %\), disk 900 \(90\.0 %\), source 0 \(0\.0 %\)/,
    );
    expect(report).toMatch(/disk hit rate 100\.0 % of memory misses/);
  });

  it('never advises the disk tier when it is on, and says what the disk served', () => {
    const report = formatCacheReport(tiered(engine(100, 900), 600, 300));
    expect(report).toMatch(/warning: hit rate below 30 %/);
    expect(report).not.toMatch(/add the disk tier|use the disk tier/);
    expect(report).toMatch(/disk tier served 600 of 900 memory misses/);
    // the same stats without the tier do advise it
    expect(formatCacheReport(engine(100, 900))).toMatch(/add the disk tier/);
  });

  it('does not suggest prefetch or plan-aware eviction when they are already on', () => {
    const on = engine(100, 900, {
      prefetch: { issued: 800, used: 700, wasted: 0, inFlight: 0, buffered: 0 },
      evictionPolicy: 'belady',
      optimalHitRate: 0.1,
    });
    const report = formatCacheReport(on);
    expect(report).not.toMatch(/cacheType 'both'/);
    expect(report).not.toMatch(/evictionPolicy 'auto'/);
    expect(report).toMatch(/more numWorkers or a larger prefetchSize/);
  });

  it('gives no verdict while every miss was a first read (nothing evicted, cache not full)', () => {
    // epoch 1 of 10,000 samples with a cache of 1,000,000: all misses, none of them avoidable
    const first = engine(0, 10_000, { size: 10_000, capacity: 1_000_000, evictions: 0 });
    const report = formatCacheReport(tiered(first, 0, 10_000));
    expect(report).toMatch(/not enough evidence yet/);
    expect(report).not.toMatch(/warning|larger than the cache|cacheSize/);
  });

  it('with the optimum low but the cache not full, blames the plan, not the cache size', () => {
    const s = engine(50, 950, {
      size: 400,
      capacity: 1000,
      evictions: 0,
      optimalHitRate: 0.05,
    });
    // evictions 0 and not full would be "no evidence": give it one eviction by maxBytes
    const report = formatCacheReport({ ...s, evictions: 1, size: 400 });
    expect(report).toMatch(/no cache of 1000 samples can reach more than 5\.0 %/);
    expect(report).toMatch(/a larger cache would not help/);
    expect(report).not.toMatch(/much larger than the cache/);
  });
});
