import { fromArray, fromLoader } from '@medfusion/core';
import { checkPlan } from '@medfusion/core/internal';
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

describe('checkPlan', () => {
  it('copies a valid plan and names a bad position and value', () => {
    const src = [2, 0, 1];
    const plan = checkPlan(src, 3);
    expect(Array.from(plan)).toEqual([2, 0, 1]);
    src[0] = 1;
    expect(plan[0]).toBe(2);
    expect(() => checkPlan([0, 3], 3)).toThrow(/order\[1\] 3 is out of range \[0, 3\)/);
    expect(() => checkPlan([0.5], 3, 'plan')).toThrow(RangeError);
    expect(() => checkPlan(7 as never, 3)).toThrow(/order must be an array-like of indices, got 7/);
  });
});
