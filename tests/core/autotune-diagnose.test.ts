import { diagnose, type EngineStats, type TieredCacheStats } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

function stats(extra: Partial<EngineStats> = {}): EngineStats {
  const hits = extra.hits ?? 200;
  const misses = extra.misses ?? 800;
  return {
    hits,
    misses,
    hitRate: hits / (hits + misses),
    size: 1000,
    capacity: 1000,
    evictions: 0,
    bytes: 0,
    maxBytes: undefined,
    loads: misses,
    inFlight: 0,
    rejected: 0,
    prefetch: { issued: misses, used: misses, wasted: 0, inFlight: 0, buffered: 0 },
    stallMs: 5000,
    planHitRate: undefined,
    planReads: 0,
    planLength: 0,
    optimalHitRate: undefined,
    peakBytes: 0,
    evictionPolicy: 'belady',
    tuning: {
      numWorkers: 2,
      prefetchSize: 10,
      autoNumWorkers: false,
      autoPrefetchSize: false,
      latencyEstimateMs: undefined,
      demandPerSec: undefined,
    },
    loadLatency: { count: 800, meanMs: 100, p50Ms: 98, p90Ms: 120, p99Ms: 150 },
    readSpanMs: 10_000,
    ...extra,
  };
}

function tiered(extra: Partial<TieredCacheStats>): TieredCacheStats {
  const disk = {
    diskHits: 700,
    misses: 100,
    diskErrors: 0,
    diskWrites: 100,
    writesDropped: 0,
    writeErrors: 0,
    pendingWrites: 0,
    diskDisabled: false,
    fingerprint: 'x',
  };
  return { ...stats(), memoryHits: 200, diskHits: 700, diskMisses: 100, disk, ...extra };
}

describe('diagnose: a report that names the bottleneck', () => {
  it('splits reads by tier and counts disk hits as disk, not as misses', () => {
    const d = diagnose(tiered({}));
    expect(d.tiers.memory).toEqual({ count: 200, share: 0.2 });
    expect(d.tiers.disk).toEqual({ count: 700, share: 0.7 });
    expect(d.tiers.source).toEqual({ count: 100, share: 0.1 });
    expect(d.bottleneck).toBe('disk');
    expect(d.evidence).toMatch(/700 of 800 loads from disk/);
    expect(d.recommendation).not.toMatch(/disk tier/); // the disk tier is already configured
  });

  it('names the consumer when the data stall is small, and recommends nothing', () => {
    const d = diagnose(stats({ stallMs: 300 }));
    expect(d.stallShare).toBeCloseTo(0.03);
    expect(d.bottleneck).toBe('consumer');
    expect(d.evidence).toMatch(/3\.0 %/);
    expect(d.recommendation).toBeUndefined();
  });

  it("names source latency with its percentiles; recommends 'auto' only when it is not set", () => {
    const fixed = diagnose(stats());
    expect(fixed.bottleneck).toBe('source-latency');
    expect(fixed.stallShare).toBeCloseTo(0.5);
    expect(fixed.evidence).toMatch(/data stall 50\.0 %; 2 loads in flight, loads p50 98\.0 ms/);
    expect(fixed.recommendation).toMatch(/numWorkers: 'auto'/);
    const auto = diagnose(
      stats({
        tuning: {
          numWorkers: 40,
          prefetchSize: 80,
          autoNumWorkers: true,
          autoPrefetchSize: true,
          latencyEstimateMs: 100,
          demandPerSec: 500,
        },
      }),
    );
    expect(auto.recommendation).not.toMatch(/'auto'/);
    expect(auto.recommendation).toMatch(/disk tier/);
  });

  it('applies the reference thresholds and says when the optimum itself is below 30 %', () => {
    const low = diagnose(stats({ optimalHitRate: 0.12 }));
    expect(low.hitRateVerdict).toBe('low');
    expect(low.thresholds).toEqual({ low: 0.3, effective: 0.7 });
    expect(low.optimumBelowLow).toBe(true);
    const good = diagnose(stats({ hits: 800, misses: 200, optimalHitRate: 0.85 }));
    expect(good.hitRateVerdict).toBe('effective');
    expect(good.optimumBelowLow).toBe(false);
  });

  it('names the memory budget when maxBytes stops the cache', () => {
    const d = diagnose(
      stats({ maxBytes: 1000, peakBytes: 1000, size: 10, capacity: 1000, rejected: 3 }),
    );
    expect(d.bottleneck).toBe('memory-budget');
    expect(d.evidence).toMatch(/maxBytes 1000/);
  });

  const autoTuning = {
    numWorkers: 24,
    prefetchSize: 48,
    autoNumWorkers: true,
    autoPrefetchSize: true,
    latencyEstimateMs: 130,
    demandPerSec: 150,
  };

  /** The demo's cold epoch with the disk tier on: every read a miss, all from the source. */
  const coldWithDisk = (extra: Partial<TieredCacheStats> = {}) =>
    tiered({
      hits: 0,
      misses: 300,
      hitRate: 0,
      memoryHits: 0,
      diskHits: 0,
      diskMisses: 300,
      tuning: autoTuning,
      ...extra,
    });

  it('a first pass with the disk tier on: no cache size, no disk tier; decode workers or shards', () => {
    // the demo's cold epoch: every read a miss, all from the source, nothing evicted
    const d = diagnose(coldWithDisk());
    expect(d.bottleneck).toBe('source-latency');
    expect(d.evidence).toMatch(/every miss a first read/);
    expect(d.recommendation).not.toMatch(/cacheSize|add the disk tier|'auto'/);
    expect(d.recommendation).toMatch(/poolSize/);
    expect(d.recommendation).toMatch(/shards/);
  });

  it('a first pass is told by the disk tier even when memory evicts (data set > cacheSize)', () => {
    const d = diagnose(
      tiered({
        hits: 0,
        misses: 3000,
        hitRate: 0,
        evictions: 2000,
        memoryHits: 0,
        diskHits: 0,
        diskMisses: 3000,
        tuning: autoTuning,
      }),
    );
    expect(d.recommendation).not.toMatch(/cacheSize/);
    expect(d.evidence).toMatch(/every miss a first read/);
  });

  it('a first pass without the disk tier: the disk tier, for the next visit', () => {
    const d = diagnose(stats({ hits: 0, misses: 300, hitRate: 0, tuning: autoTuning }));
    expect(d.recommendation).toMatch(/^add the disk tier .*next visit/);
  });

  it('misses after evictions are not first reads: growing cacheSize still helps there', () => {
    const d = diagnose(
      stats({ hits: 400, misses: 600, hitRate: 0.4, evictions: 500, tuning: autoTuning }),
    );
    expect(d.evidence).not.toMatch(/first read/);
    expect(d.recommendation).toMatch(/grow cacheSize/);
  });

  const phases = (sourceMs: number, decodeMs: number, threads: number) => ({
    loads: 100,
    sourceMs: sourceMs * 100,
    decodeMs: decodeMs * 100,
    threads,
  });

  it('names decode CPU when a load decodes longer than it waits for bytes, with the figures', () => {
    // 100 loads of 2 ms waiting + 30 ms decoding on 2 workers in a 2.5 s read span
    const d = diagnose(
      stats({ loadPhases: phases(2, 30, 2), readSpanMs: 2500, stallMs: 1000, tuning: autoTuning }),
    );
    expect(d.bottleneck).toBe('decode-cpu');
    expect(d.loadPhases).toEqual({ sourceMs: 2, decodeMs: 30, decodeBusy: 0.6 });
    expect(d.evidence).toMatch(/per load 2\.0 ms waiting for bytes, 30\.0 ms decoding/);
    expect(d.evidence).toMatch(/decoding kept 2 loading threads 60\.0 % busy/);
    // no disk tier: it keeps samples decoded
    expect(d.recommendation).toMatch(/^add the disk tier.*skip the decode/);
  });

  it('names decode CPU when decoding keeps the loading threads busy, even behind slow bytes', () => {
    // 20 ms waiting, 15 ms decoding, one thread, 100 loads in 2.5 s: 60 % of the thread decoding
    const d = diagnose(stats({ loadPhases: phases(20, 15, 1), readSpanMs: 2500, stallMs: 1000 }));
    expect(d.bottleneck).toBe('decode-cpu');
    expect(d.loadPhases?.decodeBusy).toBeCloseTo(0.6);
    expect(d.recommendation).toMatch(/pool of Web Workers/);
  });

  it('decode-bound with the disk tier on: never the disk tier, never a pool already there', () => {
    const d = diagnose(coldWithDisk({ loadPhases: phases(1, 12, 2) }));
    expect(d.bottleneck).toBe('decode-cpu');
    expect(d.recommendation).not.toMatch(/add the disk tier|pool of Web Workers/);
    expect(d.recommendation).toMatch(/width \/ height/);
  });

  it('with phases that show waiting for bytes: source latency, the split in the evidence, shards', () => {
    const d = diagnose(coldWithDisk({ loadPhases: phases(40, 0.3, 2) }));
    expect(d.bottleneck).toBe('source-latency');
    expect(d.evidence).toMatch(/per load 40\.0 ms waiting for bytes, 0\.3 ms decoding/);
    // decoding is not what loads wait for: no advice to decode in more workers
    expect(d.recommendation).not.toMatch(/poolSize/);
    expect(d.recommendation).toMatch(/shards/);
  });

  it('rejects stats that are not stats', () => {
    expect(() => diagnose(null as never)).toThrow(TypeError);
  });
});
