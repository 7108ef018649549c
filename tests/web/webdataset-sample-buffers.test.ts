// A sample read in a merged request gets a buffer of its own, filled straight from the
// network (RangeReader.readPieces), its members views of it: no copy per member, and no
// sample keeps the merged request's buffer (its neighbours' bytes) alive. Truth: the
// fixtures' bytes, packed by GNU tar.
import { shardPlan } from '@medfusion/core';
import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');
const urls = GNU_SHARDS.map((s) => `${nginx}${s.name}`);
const starts = [0, 24, 44];

function shardOf(index: number): number {
  return index < 24 ? 0 : index < 44 ? 1 : 2;
}

function expected(index: number): Record<string, Uint8Array> {
  const shard = shardOf(index);
  return sampleFiles(shard, index - (starts[shard] as number));
}

/** A sample's bytes in its shard: each member's 512-byte header and padded data. */
function archiveBytes(files: Record<string, Uint8Array>): number {
  let n = 0;
  for (const f of Object.values(files)) n += 512 + Math.ceil(f.length / 512) * 512;
  return n;
}

describe('WebDatasetSource: samples of merged reads own their bytes', () => {
  it('hands each sample one buffer of its own, byte-exact, in every epoch after the first', async () => {
    // the first epoch reads each shard whole to check its headers against its sidecar: such
    // samples are copied out of the shard's buffer; every later read is cut per sample
    const source = await WebDatasetSource.open({ urls, lookahead: 8, maxGap: 4096 });
    let shared = 0;
    for (const [epoch, seed] of [1, 2, 3].entries()) {
      const plan = shardPlan({ shardSizes: [...source.shardSizes], seed, windowShards: 2 });
      source.setPlan(plan);
      const before = source.stats().rangeRequests;
      for (const index of plan) {
        const sample = await source.get(index);
        const want = expected(index);
        expect(sample.files).toEqual(want);
        if (epoch === 0) continue;
        const buffers = new Set(Object.values(sample.files).map((f) => f.buffer));
        if (buffers.size === 1) shared++;
        expect(buffers.size, `sample ${index}: its members in one buffer`).toBe(1);
        const [buffer] = buffers;
        expect(
          buffer?.byteLength ?? 0,
          `sample ${index}: no neighbour's bytes`,
        ).toBeLessThanOrEqual(archiveBytes(want));
      }
      // merged reads, not a request per sample (72)
      if (epoch > 0) expect(source.stats().rangeRequests - before).toBeLessThan(40);
    }
    expect(shared).toBe(2 * 72);
    source.close();
  });

  it('reads a sample the plan names twice in one merged read exactly, both times', async () => {
    const source = await WebDatasetSource.open({ urls, lookahead: 8, maxGap: 4096 });
    // each shard read whole and checked first; then the repeats go into cut reads
    for (const i of [0, 24]) expect((await source.get(i)).files).toEqual(expected(i));
    source.prefetch([5, 5, 6, 7, 6]);
    for (const i of [5, 6, 7]) expect((await source.get(i)).files).toEqual(expected(i));
    source.prefetch([26, 26, 27]);
    for (const i of [26, 27, 26]) expect((await source.get(i)).files).toEqual(expected(i));
    source.close();
  });
});
