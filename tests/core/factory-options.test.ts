import {
  CachingEngine,
  createCachedDataset,
  fromArray,
  MedFusionError,
  PrefetchDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const ds = fromArray([1, 2, 3]);

describe('createCachedDataset options', () => {
  it('rejects bad options naming the option and the value', () => {
    const bad: [Record<string, unknown>, RegExp, ErrorConstructor][] = [
      [
        { cacheType: 'mmap' },
        /cacheType must be one of 'lru', 'prefetch', 'both', 'none', got "mmap"/,
        RangeError,
      ],
      [{ cacheSize: -1 }, /cacheSize must be a non-negative integer, got -1/, RangeError],
      [{ cacheSize: '10' }, /cacheSize .*got "10"/, TypeError],
      [{ prefetchSize: 2.5 }, /prefetchSize .*got 2.5/, RangeError],
      [{ numWorkers: 0 }, /numWorkers must be a positive integer, got 0/, RangeError],
      [
        { evictionPolicy: 'fifo' },
        /evictionPolicy must be one of 'auto', 'lru', 'belady', got "fifo"/,
        RangeError,
      ],
      [{ maxBytes: 0 }, /maxBytes must be a finite positive number, got 0/, RangeError],
      [{ loadTimeoutMs: Number.NaN }, /loadTimeoutMs .*got NaN/, RangeError],
      [{ sizeOf: 12 }, /sizeOf must be a function, got 12/, TypeError],
      [{ executor: {} }, /executor must have a run/, TypeError],
    ];
    for (const [options, message, type] of bad) {
      expect(() => createCachedDataset(ds, options), JSON.stringify(options)).toThrow(type);
      expect(() => createCachedDataset(ds, options), JSON.stringify(options)).toThrow(message);
    }
    expect(() => createCachedDataset(ds, null as never)).toThrow(TypeError);
    expect(() => createCachedDataset({} as never)).toThrow(/dataset must be a Dataset/);
    expect(() => new PrefetchDataset(ds, { numWorkers: -2 })).toThrow(/numWorkers .*-2/);
    // Python names and options of other strategies are not silently ignored
    expect(() => createCachedDataset(ds, { prefetch_size: 20 } as never)).toThrow(
      /unknown option "prefetch_size"/,
    );
    expect(() => new PrefetchDataset(ds, { num_workers: 4 } as never)).toThrow(
      /unknown option "num_workers"; PrefetchDataset takes cacheSize, prefetchSize, numWorkers/,
    );
    expect(() => new PrefetchDataset(ds, null as never)).toThrow(/options must be an object/);
  });

  it('cacheDir without a tier fails with NO_STORE (core has no disk)', () => {
    const dir = () => createCachedDataset(ds, { cacheDir: './cache' } as never);
    expect(dir).toThrow(MedFusionError);
    expect(dir).toThrow(/cacheDir ".\/cache" needs @medfusion\/web/);
    try {
      dir();
    } catch (e) {
      expect((e as MedFusionError).code).toBe('NO_STORE');
    }
  });

  it('rejects a bad plan naming the position and the value', () => {
    const cached = createCachedDataset(ds, { cacheType: 'both' });
    expect(() => cached.setPlan([0, 1, 7])).toThrow(/plan\[2\] 7 is out of range \[0, 3\)/);
    expect(() => cached.setPlan([0, -1])).toThrow(RangeError);
    expect(() => cached.setPlan(5 as never)).toThrow(/plan must be an array-like/);
    expect(() => cached.get(3)).toThrow(/index 3 is out of range/);
  });

  it('builds each strategy with the reference defaults', () => {
    const lru = createCachedDataset(ds);
    expect(lru).toBeInstanceOf(CachingEngine);
    expect(lru.getCacheStats()).toMatchObject({ capacity: 1000, size: 0, hitRate: 0 });
    const prefetch = createCachedDataset(ds, { cacheType: 'prefetch' });
    expect(prefetch).toBeInstanceOf(PrefetchDataset);
    expect(prefetch.getCacheStats().capacity).toBe(0);
    const both = createCachedDataset(ds, { cacheType: 'both', cacheSize: 2, maxBytes: 64 });
    expect(both.getCacheStats()).toMatchObject({
      capacity: 2,
      maxBytes: 64,
      optimalHitRate: undefined,
    });
    const none = createCachedDataset(ds, { cacheType: 'none' });
    expect(none.getCacheStats().capacity).toBe(0);
    for (const d of [lru, prefetch, both, none]) {
      expect(d.length).toBe(3);
      expect(typeof d.setPlan).toBe('function');
      expect(typeof d.clearCache).toBe('function');
    }
  });
});
