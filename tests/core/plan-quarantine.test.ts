import {
  DataLoader,
  type Dataset,
  type PlanAware,
  type PlanInput,
  Quarantine,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('the plan handed to the dataset leaves quarantined samples out', () => {
  it('for a shuffled epoch of a large data set, without building the order', async () => {
    const n = 2 ** 40;
    const plans: PlanInput[] = [];
    const ds: Dataset<{ id: number }> & PlanAware = {
      length: n,
      get: (i) => ({ id: i }),
      setPlan: (plan) => {
        plans.push(plan);
      },
    };
    const quarantine = new Quarantine();
    const loader = new DataLoader(ds, { batchSize: 4, shuffle: true, seed: 2, quarantine });
    const order = loader.planOf(0);
    quarantine.add(order.indexAt(1));
    quarantine.add(order.indexAt(5));
    for await (const _ of loader) break;
    const plan = plans[0] as {
      length: number;
      indexAt(p: number): number;
      positionOf?(i: number): number;
    };
    expect(plan.length).toBe(n - 2);
    const first = [0, 1, 2, 3, 4, 5].map((p) => plan.indexAt(p));
    expect(first).toEqual([0, 2, 3, 4, 6, 7].map((p) => order.indexAt(p)));
    expect(plan.positionOf?.(order.indexAt(5))).toBe(-1);
    expect(plan.positionOf?.(order.indexAt(7))).toBe(5);
  });
});
