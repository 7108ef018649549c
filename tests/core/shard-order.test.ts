import { DataLoader, fromArray, ShardLayout, ShardOrder, shardPlan } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('ShardOrder (the shard-aware order as a function)', () => {
  it('is shardPlan position by position, and positionOf inverts indexAt', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        fc.nat(1000),
        fc.boolean(),
        (shardSizes, windowShards, seed, shuffle) => {
          const order = new ShardOrder({ shardSizes, seed, epoch: 2, windowShards, shuffle });
          const plan = shardPlan({ shardSizes, seed, epoch: 2, windowShards, shuffle });
          expect(Array.from(order)).toEqual(Array.from(plan));
          let bad = 0;
          for (let p = 0; p < order.length; p++)
            if (order.positionOf(order.indexAt(p)) !== p) bad++;
          expect(bad).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('defines a stable order (these values must never change)', () => {
    const order = new ShardOrder({ shardSizes: [3, 0, 2, 4], seed: 5, epoch: 1, windowShards: 2 });
    expect(Array.from(order)).toEqual([5, 7, 4, 8, 3, 6, 2, 1, 0]);
  });

  it('opens a 100,000-shard manifest without reading every shard, one window at a time', () => {
    const shardSizes = Array.from({ length: 100_000 }, (_, s) => 1000 + (s % 7));
    const layout = new ShardLayout(shardSizes);
    const order = new ShardOrder({ shardSizes, seed: 9, windowShards: 4 });
    const shards = new Set<number>();
    for (let p = 0; p < 2000; p++) shards.add(layout.shardOf(order.indexAt(p)));
    expect(shards.size).toBeLessThanOrEqual(4);
    // a position deep in the epoch, and back
    const p = order.length - 17;
    expect(order.positionOf(order.indexAt(p))).toBe(p);
  });

  it('is accepted as a DataLoader sampler without being materialised', async () => {
    const shardSizes = [5, 5, 5];
    const ds = fromArray(Array.from({ length: 15 }, (_, i) => ({ id: i })));
    const loader = new DataLoader(ds, {
      batchSize: 15,
      sampler: (epoch, seed) => new ShardOrder({ shardSizes, seed, epoch, windowShards: 2 }),
    });
    for await (const batch of loader) {
      expect(Array.from(batch.id!.data)).toEqual(
        Array.from(shardPlan({ shardSizes, seed: 0, epoch: 0, windowShards: 2 })),
      );
    }
  });
});
