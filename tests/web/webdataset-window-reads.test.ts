// A shard-aware shuffle read with a lookahead shorter than its shuffle window
// (the default: 256 samples against windows of thousands): the source should
// still read each window's shards in a few merged requests, not come back for
// the samples its chunks left in the gaps, nor read the first samples of the
// next window one by one. (`pnpm bench shards` measures the same at scale.)
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

describe('WebDatasetSource: a lookahead shorter than the shuffle window', () => {
  it('reads a shard-aware epoch in merged reads that close the gaps between its chunks, byte-exact', async () => {
    const counts: number[] = [];
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      // 72 samples (2-3 KB each) in 3 shards; windows of 2 shards (44-52 samples) against a
      // lookahead of 8 and a gap limit of 2 KB: the scale of the default 256 samples against a
      // window of 1,000 samples of 2-6 KB and a 64 KB gap limit (`pnpm bench shards`)
      const source = await WebDatasetSource.open({ urls, lookahead: 8, maxGap: 2048 });
      const plan = shardPlan({ shardSizes: [...source.shardSizes], seed, windowShards: 2 });
      source.setPlan(plan);
      const before = source.stats().rangeRequests; // a shard without a sidecar is streamed at open
      for (const index of plan) expect((await source.get(index)).files).toEqual(expected(index));
      counts.push(source.stats().rangeRequests - before);
      source.close();
    }
    console.log('[window reads] requests per epoch, seeds 1-6:', counts.join(' '));
    // One request per sample is 72. Chunks read alone (before): 51-63 requests; with the
    // samples between a chunk's own in each shard read along, and chunks cut where the next
    // window starts: 18-36 (the windows are longer than the 4 x lookahead horizon, so some
    // samples are still read later)
    for (const n of counts) expect(n).toBeLessThanOrEqual(40);
  });
});
