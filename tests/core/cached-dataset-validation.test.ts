import type { Dataset } from '@medfusion/core';
import { CachedDataset, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const ds = fromArray([1, 2, 3]);

describe('CachedDataset rejects bad input naming the option, index and value', () => {
  it.each([
    [{ cacheSize: 0 }, RangeError, /cacheSize must be a positive integer, got 0/],
    [{ cacheSize: -5 }, RangeError, /cacheSize .* got -5/],
    [{ cacheSize: 1.5 }, RangeError, /cacheSize .* got 1.5/],
    [{ cacheSize: Number.POSITIVE_INFINITY }, RangeError, /cacheSize .* got Infinity/],
    [{ cacheSize: '100' }, TypeError, /cacheSize .* got "100"/],
    [{ cacheSize: null }, TypeError, /cacheSize .* got null/],
    [{ maxBytes: 0 }, RangeError, /maxBytes must be a finite positive number, got 0/],
    [{ maxBytes: Number.NaN }, RangeError, /maxBytes .* got NaN/],
    [{ maxBytes: Number.POSITIVE_INFINITY }, RangeError, /maxBytes .* got Infinity/],
    [{ maxBytes: '1e6' }, TypeError, /maxBytes .* got "1e6"/],
    [{ cacheImages: 'no' }, TypeError, /cacheImages must be a boolean, got "no"/],
    [{ cacheTabular: 0 }, TypeError, /cacheTabular must be a boolean, got 0/],
  ])('options %o', (options, type, message) => {
    const make = () => new CachedDataset(ds, options as never);
    expect(make).toThrow(type);
    expect(make).toThrow(message);
  });

  it('rejects unknown options, such as the Python spelling cache_size, by name', () => {
    const make = () => new CachedDataset(ds, { cache_size: 10 } as never);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/unknown option "cache_size"; CachedDataset takes cacheSize, maxBytes/);
  });

  it('rejects a non-dataset and a non-object options argument', () => {
    expect(() => new CachedDataset(null as unknown as Dataset<number>)).toThrow(TypeError);
    expect(() => new CachedDataset({ length: 3 } as unknown as Dataset<number>)).toThrow(
      /dataset must be a Dataset/,
    );
    expect(() => new CachedDataset(ds, 5 as never)).toThrow(/options must be an object, got 5/);
  });

  it.each([
    [-1, /index -1 is out of range \[0, 3\)/],
    [3, /index 3 is out of range \[0, 3\)/],
    [1.5, /index must be an integer in \[0, 3\), got 1.5/],
    [Number.NaN, /index must be an integer .* got NaN/],
    ['1', /index must be an integer .* got "1"/],
  ])('index %o', (bad, message) => {
    const cached = new CachedDataset(ds);
    expect(() => cached.get(bad as number)).toThrow(RangeError);
    expect(() => cached.get(bad as number)).toThrow(message);
    expect(cached.getCacheStats()).toMatchObject({ hits: 0, misses: 0, loads: 0 });
  });
});
