import { ShardLayout, shardPlan } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Largest number of shards started but not finished at any point of `plan`. */
function maxShardsOpen(plan: Uint32Array, layout: ShardLayout): number {
  const last = new Map<number, number>();
  plan.forEach((idx, pos) => {
    last.set(layout.shardOf(idx), pos);
  });
  const open = new Set<number>();
  let max = 0;
  plan.forEach((idx, pos) => {
    const s = layout.shardOf(idx);
    open.add(s);
    max = Math.max(max, open.size);
    if (last.get(s) === pos) open.delete(s);
  });
  return max;
}

describe('shardPlan', () => {
  it('is a permutation of every sample, with at most windowShards shards open', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.nat(1000),
        (sizes, windowShards, seed) => {
          const layout = new ShardLayout(sizes);
          const plan = shardPlan({ shardSizes: sizes, seed, windowShards });
          expect(plan.length).toBe(layout.length);
          expect([...plan].sort((a, b) => a - b)).toEqual([...Array(layout.length).keys()]);
          expect(maxShardsOpen(plan, layout)).toBeLessThanOrEqual(windowShards);
        },
      ),
    );
  });

  it('is reproducible for a seed and epoch, and differs across seeds and epochs', () => {
    const shardSizes = [50, 50, 50, 50, 50, 50];
    const a = shardPlan({ shardSizes, seed: 3, epoch: 1 });
    expect(shardPlan({ shardSizes, seed: 3, epoch: 1 })).toEqual(a);
    expect(shardPlan({ shardSizes, seed: 4, epoch: 1 })).not.toEqual(a);
    expect(shardPlan({ shardSizes, seed: 3, epoch: 2 })).not.toEqual(a);
  });

  it('actually shuffles samples inside a window and shards across windows', () => {
    const shardSizes = [100, 100, 100, 100];
    const layout = new ShardLayout(shardSizes);
    const plan = shardPlan({ shardSizes, seed: 1, windowShards: 2 });
    // The first 200 positions mix exactly two shards.
    const firstWindow = new Set([...plan.subarray(0, 200)].map((i) => layout.shardOf(i)));
    expect(firstWindow.size).toBe(2);
    let ascending = 0;
    for (let i = 1; i < 200; i++) if ((plan[i] as number) > (plan[i - 1] as number)) ascending++;
    expect(ascending).toBeGreaterThan(50);
    expect(ascending).toBeLessThan(150);
  });

  it('keeps the natural order when shuffle is false', () => {
    expect([...shardPlan({ shardSizes: [2, 3], shuffle: false })]).toEqual([0, 1, 2, 3, 4]);
  });

  it('rejects bad options naming the option and value', () => {
    expect(() => shardPlan({ shardSizes: [1, -2] })).toThrow(/shardSizes\[1\].*-2/);
    expect(() => shardPlan({ shardSizes: [1], windowShards: 0 })).toThrow(/windowShards.*0/);
    expect(() => shardPlan({ shardSizes: [1], seed: 1.5 })).toThrow(/seed.*1\.5/);
    expect(() => shardPlan(null as never)).toThrow(TypeError);
  });
});

describe('ShardLayout', () => {
  it('maps global indices to shard and local position', () => {
    const layout = new ShardLayout([3, 0, 2]);
    expect(layout.length).toBe(5);
    expect([0, 1, 2, 3, 4].map((i) => layout.shardOf(i))).toEqual([0, 0, 0, 2, 2]);
    expect(layout.localIndex(4)).toBe(1);
    expect(layout.start(2)).toBe(3);
    expect(() => layout.shardOf(5)).toThrow(RangeError);
  });
});
