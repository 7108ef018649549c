import { fromArray, fromLoader } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('fromArray / fromLoader', () => {
  it('wraps an array and checks indices', () => {
    const ds = fromArray(['a', 'b', 'c']);
    expect(ds.length).toBe(3);
    expect(ds.get(2)).toBe('c');
    expect(() => ds.get(3)).toThrow(RangeError);
    expect(() => ds.get(1.5)).toThrow(/index must be an integer/);
  });

  it('passes index and signal to the loader', async () => {
    const seen: number[] = [];
    const ds = fromLoader(5, async (i, signal) => {
      seen.push(i);
      return signal?.aborted ? -1 : i * 10;
    });
    expect(await ds.get(4)).toBe(40);
    expect(seen).toEqual([4]);
    expect(() => fromLoader(-1, () => 0)).toThrow(/length must be a non-negative integer, got -1/);
  });
});
