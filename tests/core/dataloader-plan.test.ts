import { DataLoader, type Dataset, type PlanAware } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

class PlannedDataset implements Dataset<{ id: number }>, PlanAware {
  readonly plans: number[][] = [];
  readonly reads: number[] = [];
  constructor(readonly length: number) {}
  setPlan(order: ArrayLike<number>): void {
    this.plans.push(Array.from(order));
  }
  get(index: number) {
    // every read must come after a plan that announced it
    if (this.plans.length === 0) throw new Error('read before any plan');
    this.reads.push(index);
    return { id: index };
  }
}

describe('DataLoader hands the epoch order to plan-aware datasets', () => {
  it('calls setPlan once per epoch, before reading, with the exact order that is read', async () => {
    const ds = new PlannedDataset(23);
    const loader = new DataLoader(ds, { batchSize: 5, shuffle: true, seed: 99 });
    for (let e = 0; e < 3; e++) {
      const readsBefore = ds.reads.length;
      for await (const _ of loader) {
        /* consume */
      }
      expect(ds.plans).toHaveLength(e + 1);
      expect(ds.plans[e]).toEqual(Array.from(loader.orderOf(e)));
      expect(ds.reads.slice(readsBefore)).toEqual(ds.plans[e]);
    }
    expect(ds.plans[0]).not.toEqual(ds.plans[1]);
  });

  it('announces only what will be read: the dropped tail and, on resume, the rest of the epoch', async () => {
    const dropped = new PlannedDataset(11);
    const a = new DataLoader(dropped, { batchSize: 4, dropLast: true, shuffle: true, seed: 1 });
    for await (const _ of a) {
      /* consume */
    }
    expect(dropped.plans[0]).toEqual(Array.from(a.orderOf(0).subarray(0, 8)));
    expect(dropped.reads).toEqual(dropped.plans[0]);

    const resumed = new PlannedDataset(11);
    const b = new DataLoader(resumed, {
      batchSize: 4,
      shuffle: true,
      resumeFrom: { seed: 1, epoch: 2, cursor: 1 },
    });
    for await (const _ of b) {
      /* consume */
    }
    expect(resumed.plans[0]).toEqual(Array.from(b.orderOf(2).subarray(4)));
    expect(resumed.reads).toEqual(resumed.plans[0]);
  });
});
