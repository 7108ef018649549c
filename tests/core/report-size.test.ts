import { recommendCacheSize } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('recommendCacheSize: the reference sizing rules', () => {
  it('small data sets (< 1,000) cache everything', () => {
    expect(recommendCacheSize(0, 32)).toBe(0);
    expect(recommendCacheSize(999, 32)).toBe(999);
  });

  it('medium (1,000–10,000) caches batchSize × 20, never more than the data set', () => {
    expect(recommendCacheSize(1000, 32)).toBe(640);
    expect(recommendCacheSize(10_000, 16)).toBe(320);
    expect(recommendCacheSize(5000, 512)).toBe(5000);
  });

  it('large (> 10,000) caches 1,000', () => {
    expect(recommendCacheSize(10_001, 32)).toBe(1000);
    expect(recommendCacheSize(2_000_000, 256)).toBe(1000);
  });

  it('rejects bad arguments naming them', () => {
    expect(() => recommendCacheSize(-5, 32)).toThrow(
      /length must be a non-negative integer, got -5/,
    );
    expect(() => recommendCacheSize(100, 0)).toThrow(/batchSize must be a positive integer, got 0/);
    expect(() => recommendCacheSize(100, '8' as never)).toThrow(TypeError);
  });
});
