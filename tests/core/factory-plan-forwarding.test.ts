import {
  createCachedDataset,
  DataLoader,
  type Dataset,
  MemoryStore,
  type PlanAware,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A source that records the plans it is given (as remote shards do, to merge reads). */
function planAwareSource(length: number) {
  const plans: number[][] = [];
  const source: Dataset<{ x: Float32Array; label: number }> & PlanAware = {
    length,
    get: (i) => ({ x: new Float32Array([i]), label: i % 2 }),
    setPlan: (order) => {
      plans.push(Array.from(order));
    },
  };
  return { source, plans };
}

describe('createCachedDataset hands the plan down to a plan-aware source', () => {
  for (const cacheType of ['none', 'lru', 'prefetch', 'both'] as const) {
    it(`cacheType '${cacheType}': the source sees each epoch's order`, async () => {
      const { source, plans } = planAwareSource(30);
      const ds = createCachedDataset(source, { cacheType, cacheSize: 5 });
      const loader = new DataLoader(ds, { batchSize: 7, shuffle: true, seed: 2 });
      for await (const _ of loader) {
        // read epoch 0
      }
      for await (const _ of loader) {
        // read epoch 1
      }
      expect(plans).toEqual([Array.from(loader.orderOf(0)), Array.from(loader.orderOf(1))]);
      await ds.close();
    });
  }

  it('through the disk tier as well', async () => {
    const { source, plans } = planAwareSource(12);
    const ds = createCachedDataset(source, {
      cacheType: 'both',
      cacheSize: 4,
      store: new MemoryStore(),
      fingerprint: 'plan-forwarding@1',
    });
    ds.setPlan([3, 1, 2]);
    expect(plans).toEqual([[3, 1, 2]]);
    await ds.close();
  });
});
