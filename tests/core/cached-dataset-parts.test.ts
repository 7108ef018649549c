import { CachedDataset, fromLoader } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

interface Sample {
  image: Uint8Array | null;
  tabular: Float32Array | null;
  label: number;
}

function multimodal(withImage = true, withTabular = true) {
  let loads = 0;
  const ds = fromLoader<Sample>(4, (i) => {
    loads++;
    return {
      image: withImage ? new Uint8Array(1000) : null,
      tabular: withTabular ? new Float32Array(10) : null,
      label: i,
    };
  });
  return { ds, loads: () => loads };
}

describe('CachedDataset cacheImages / cacheTabular', () => {
  it('keeps whole samples by default and measures both parts', () => {
    const { ds, loads } = multimodal();
    const cached = new CachedDataset(ds);
    const s = cached.get(0);
    expect(cached.get(0)).toBe(s);
    expect(loads()).toBe(1);
    expect(cached.getCacheStats()).toMatchObject({ hits: 1, misses: 1, size: 1, bytes: 1040 });
  });

  it('cacheImages: false keeps samples with an image out of memory: every access reloads and misses', () => {
    const { ds, loads } = multimodal();
    const cached = new CachedDataset(ds, { cacheImages: false });
    const a = cached.get(1) as Sample;
    const b = cached.get(1) as Sample;
    expect(a.label).toBe(1);
    expect(b.image).toBeInstanceOf(Uint8Array);
    expect(b).not.toBe(a);
    expect(loads()).toBe(2);
    expect(cached.getCacheStats()).toMatchObject({
      hits: 0,
      misses: 2,
      hitRate: 0,
      size: 0,
      bytes: 0,
    });
  });

  it('cacheTabular: false keeps samples with tabular data out of memory', () => {
    const { ds, loads } = multimodal();
    const cached = new CachedDataset(ds, { cacheTabular: false });
    cached.get(2);
    cached.get(2);
    expect(loads()).toBe(2);
    expect(cached.getCacheStats()).toMatchObject({ misses: 2, size: 0, bytes: 0 });
  });

  it('still caches samples that lack the excluded part', () => {
    const { ds, loads } = multimodal(false, true);
    const cached = new CachedDataset(ds, { cacheImages: false });
    cached.get(3);
    cached.get(3);
    expect(loads()).toBe(1);
    expect(cached.getCacheStats()).toMatchObject({ hits: 1, size: 1, bytes: 40 });
  });

  it('does not touch samples that are not multimodal records', () => {
    let loads = 0;
    const cached = new CachedDataset(
      fromLoader(2, (i) => {
        loads++;
        return i * 10;
      }),
      { cacheImages: false, cacheTabular: false },
    );
    expect(cached.get(1)).toBe(10);
    expect(cached.get(1)).toBe(10);
    expect(loads).toBe(1);
  });
});
