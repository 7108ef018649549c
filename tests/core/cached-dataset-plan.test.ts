import type { Dataset, PlanAware } from '@medfusion/core';
import { CachedDataset, fromArray, isPlanAware } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('CachedDataset forwards setPlan', () => {
  it('hands the plan to a PlanAware wrapped dataset', () => {
    const plans: number[][] = [];
    const inner: Dataset<number> & PlanAware = {
      length: 4,
      get: (i) => i,
      setPlan: (order) => plans.push(Array.from(order)),
    };
    const cached = new CachedDataset(inner);
    expect(isPlanAware(cached)).toBe(true);
    cached.setPlan(new Uint32Array([3, 1, 2]));
    expect(plans).toEqual([[3, 1, 2]]);
  });

  it('ignores the plan when the wrapped dataset is not PlanAware', () => {
    const cached = new CachedDataset(fromArray(['a', 'b']));
    expect(() => cached.setPlan([1, 0])).not.toThrow();
    expect(cached.get(1)).toBe('b');
  });
});
