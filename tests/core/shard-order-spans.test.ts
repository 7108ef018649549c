import { ShardLayout, ShardOrder } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('ShardOrder spans (the epoch cut into equal runs of shards before windowing)', () => {
  it('is a permutation, positionOf inverts indexAt, and spans: 1 is the order of 0.2', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 13 }),
        fc.nat(1000),
        fc.boolean(),
        (shardSizes, windowShards, spans, seed, shuffle) => {
          const order = new ShardOrder({
            shardSizes,
            seed,
            epoch: 3,
            windowShards,
            spans,
            shuffle,
          });
          const all = Array.from(order);
          expect([...all].sort((a, b) => a - b)).toEqual(all.map((_, i) => i));
          let bad = 0;
          for (let p = 0; p < order.length; p++)
            if (order.positionOf(order.indexAt(p)) !== p) bad++;
          expect(bad).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
    const order = new ShardOrder({
      shardSizes: [3, 0, 2, 4],
      seed: 5,
      epoch: 1,
      windowShards: 2,
      spans: 1,
    });
    expect(Array.from(order)).toEqual([5, 7, 4, 8, 3, 6, 2, 1, 0]);
  });

  it('reads span q mod spans at position q, each span a run of whole shards but at its two ends', () => {
    const shardSizes = Array.from({ length: 40 }, (_, s) => 50 + ((s * 37) % 30));
    const layout = new ShardLayout(shardSizes);
    const order = new ShardOrder({ shardSizes, seed: 4, windowShards: 3, spans: 4 });
    const touched = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()];
    for (let p = 0; p < order.length; p++) touched[p % 4]!.add(layout.shardOf(order.indexAt(p)));
    const sizes = touched.map((t) => t.size);
    // 10 shards' worth of samples each, plus the two shards cut at its ends and the last
    // round (spans differ by one sample at most, so the last round may miss a span)
    for (const n of sizes) expect(n).toBeLessThanOrEqual(13);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(40 + 3 + 3);
  });
});
