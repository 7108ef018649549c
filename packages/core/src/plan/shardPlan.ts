import { ShardOrder, type ShardPlanOptions } from './ShardOrder.js';

/**
 * A shard-aware epoch order as an array: {@link ShardOrder} materialised.
 * Shuffle the shards, then take them `windowShards` at a time and shuffle the
 * samples of each window together. Random enough for SGD, yet at most
 * `windowShards` shards are in flight, so a prefetcher reading this plan
 * ahead touches few objects and can merge neighbouring byte ranges into one
 * request. Seeded and counter-based: the same options always give the same
 * plan. For large data sets hand the `ShardOrder` itself (no array) to
 * `setPlan` or return it from a DataLoader `sampler`.
 *
 * @example
 * const order = shardPlan({ shardSizes: [1000, 1000, 1000, 800], seed: 7, epoch, windowShards: 2 });
 * source.setPlan(order); // and iterate `order`
 */
export function shardPlan(options: ShardPlanOptions): Uint32Array {
  const order = new ShardOrder(options);
  if (order.length > 0xffffffff) {
    throw new RangeError(
      `shardPlan holds at most 2^32-1 samples, got ${order.length}: use ShardOrder`,
    );
  }
  const plan = new Uint32Array(order.length);
  for (let p = 0; p < plan.length; p++) plan[p] = order.indexAt(p);
  return plan;
}
