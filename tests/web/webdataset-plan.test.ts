import { shardPlan } from '@medfusion/core';
import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');
const urls = GNU_SHARDS.map((s) => `${nginx}${s.name}`);
const starts = [0, 24, 44];

function expected(index: number): Record<string, Uint8Array> {
  const shard = index < 24 ? 0 : index < 44 ? 1 : 2;
  return sampleFiles(shard, index - (starts[shard] as number));
}

describe('WebDatasetSource: plan-aware merged range requests', () => {
  it('reads a shard-aware epoch in a few merged requests, byte-exact', async () => {
    const source = await WebDatasetSource.open({ urls, lookahead: 32 });
    const plan = shardPlan({ shardSizes: [...source.shardSizes], seed: 5, windowShards: 2 });
    source.setPlan(plan);
    for (const index of plan) expect((await source.get(index)).files).toEqual(expected(index));
    const { rangeRequests } = source.stats();
    expect(rangeRequests).toBeGreaterThan(0);
    // One request per sample would be 72; merged windows need far fewer.
    expect(rangeRequests).toBeLessThanOrEqual(12);
    source.close();
  });

  it('without a plan reads one range per sample', async () => {
    const source = await WebDatasetSource.open({ urls });
    const atOpen = source.stats().rangeRequests; // shard 2 has no sidecar: streamed once
    for (const index of [3, 30, 60])
      expect((await source.get(index)).files).toEqual(expected(index));
    expect(source.stats().rangeRequests - atOpen).toBe(3);
    source.close();
  });

  it('requests the upcoming window before it is asked for', async () => {
    const source = await WebDatasetSource.open({ urls, lookahead: 16 });
    const plan = [...Array(72).keys()];
    source.setPlan(plan);
    await source.get(0);
    const afterFirst = source.stats().rangeRequests;
    expect(afterFirst).toBeGreaterThanOrEqual(1);
    // Samples 1..15 were read by that window: no new requests for them.
    for (let i = 1; i < 8; i++) await source.get(i);
    expect(source.stats().rangeRequests).toBe(afterFirst);
    source.close();
  });

  it('rangesFor merges adjacent samples into one range per shard', async () => {
    const source = await WebDatasetSource.open({ urls });
    const ranges = await source.rangesFor([0, 1, 2, 3, 30, 31]);
    expect(ranges).toHaveLength(2);
    expect(ranges.map((r) => r.parts.length).sort()).toEqual([2, 4]);
    const tight = await source.rangesFor([0, 1, 2, 3]);
    expect(tight[0]!.start).toBeLessThan(tight[0]!.end);
    const atOpen = source.stats().rangeRequests;
    source.prefetch([5, 6, 7]);
    expect((await source.get(6)).files).toEqual(expected(6));
    expect((await source.get(7)).files).toEqual(expected(7));
    expect(source.stats().rangeRequests - atOpen).toBe(1);
    source.close();
  });

  it('keeps samples a merged read covered anyway when the plan needs them soon', async () => {
    const source = await WebDatasetSource.open({ urls, lookahead: 12 });
    const [whole] = await source.rangesFor([...Array(24).keys()]);
    // Shard 0: even samples first, then odd ones. The merged read of the evens
    // also returns odds 1..21, which the plan wants right after.
    const evens = [...Array(12).keys()].map((k) => 2 * k);
    const plan = [...evens, ...evens.map((e) => e + 1)];
    source.setPlan(plan);
    for (const index of plan) expect((await source.get(index)).files).toEqual(expected(index));
    // Every byte of the shard is read once: no second pass over the odd samples.
    expect(source.stats().bytesRead).toBeLessThanOrEqual(whole!.end - whole!.start);
    source.close();
  });

  it('rejects a plan with out-of-range indices', async () => {
    const source = await WebDatasetSource.open({ urls });
    expect(() => source.setPlan([0, 72])).toThrow(/order\[1\] 72 is out of range/);
    source.close();
  });
});
