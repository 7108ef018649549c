import { DataLoader, fromArray, type LoaderState, ShardLayout, ShardOrder } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

// 100 shards of 20-59 samples, each sample 1-4 KB: a rank is charged, per shard it reads, the
// bytes from its first to its last sample there (what merged range requests fetch at most)
const shardSizes = Array.from({ length: 100 }, (_, s) => 20 + ((s * 53) % 40));
const layout = new ShardLayout(shardSizes);
const n = layout.length;
const sampleBytes = Array.from({ length: n }, (_, i) => 1024 + ((i * 2654435761) % 3072));
const offset = new Float64Array(n + 1);
for (let i = 0; i < n; i++) offset[i + 1] = offset[i]! + sampleBytes[i]!;
const totalBytes = offset[n]!;
const ds = fromArray(Array.from({ length: n }, (_, id) => ({ id })));
const samplerOf = (spans: number) => (epoch: number, seed: number) =>
  new ShardOrder({ shardSizes, seed, epoch, windowShards: 4, spans });
const sampler = samplerOf(12);

async function take(loader: DataLoader<{ id: number }>, batches = Infinity): Promise<number[]> {
  const out: number[] = [];
  if (batches === 0) return out;
  let k = 0;
  for await (const b of loader) {
    out.push(...b.id!.data);
    if (++k === batches) break;
  }
  return out;
}

/** Shards touched, and bytes a rank fetches reading `indices`, as shares of the data set's. */
function shares(indices: number[]): { shards: number; bytes: number } {
  const lo = new Map<number, number>();
  const hi = new Map<number, number>();
  for (const i of indices) {
    const s = layout.shardOf(i);
    lo.set(s, Math.min(lo.get(s) ?? i, i));
    hi.set(s, Math.max(hi.get(s) ?? i, i));
  }
  let bytes = 0;
  for (const [s, a] of lo) bytes += offset[hi.get(s)! + 1]! - offset[a]!;
  return { shards: lo.size / shardSizes.length, bytes: bytes / totalBytes };
}

describe('ranks over shards: a rank reads whole spans of shards', () => {
  it('each of 4 ranks fetches at most 0.3 of the bytes per epoch (and of the shards, with 4 spans)', async () => {
    const worst = { 4: { shards: 0, bytes: 0 }, 12: { shards: 0, bytes: 0 } };
    for (const spans of [4, 12] as const) {
      for (let epoch = 0; epoch < 3; epoch++) {
        for (let rank = 0; rank < 4; rank++) {
          const loader = new DataLoader(ds, {
            batchSize: 16,
            sampler: samplerOf(spans),
            seed: 3,
            rank,
            worldSize: 4,
            resumeFrom: { seed: 3, epoch, cursor: 0 },
          });
          const s = shares(await take(loader));
          worst[spans].shards = Math.max(worst[spans].shards, s.shards);
          worst[spans].bytes = Math.max(worst[spans].bytes, s.bytes);
        }
      }
    }
    expect(worst[4].bytes).toBeLessThanOrEqual(0.3);
    expect(worst[4].shards).toBeLessThanOrEqual(0.3);
    expect(worst[12].bytes).toBeLessThanOrEqual(0.3);
    // 3 spans of 12: the 25 shards' worth, plus the shards cut at the ends of each span (read
    // in part, so their bytes hardly count) and the last round's few positions
    expect(worst[12].shards).toBeLessThanOrEqual(0.35);
  });

  it('3 epochs, resumed from 4 ranks to 3 in the middle: every index once per epoch across ranks', async () => {
    const opts = { batchSize: 16, sampler, seed: 5, evenRanks: 'pad' as const };
    const epochs: number[][] = [[], [], []];
    const four = [0, 1, 2, 3].map((rank) => new DataLoader(ds, { ...opts, rank, worldSize: 4 }));
    for (const l of four) epochs[0]!.push(...(await take(l)));
    for (const l of four) epochs[1]!.push(...(await take(l, 7)));
    const state: LoaderState = JSON.parse(JSON.stringify(four[2]!.state()));
    expect(state.position).toBe(7 * 16 * 4);
    const three = [0, 1, 2].map(
      (rank) => new DataLoader(ds, { ...opts, rank, worldSize: 3, resumeFrom: state }),
    );
    for (const l of three) epochs[1]!.push(...(await take(l)));
    for (const l of three) epochs[2]!.push(...(await take(l)));
    const everyIndex = new Set(Array.from({ length: n }, (_, i) => i));
    for (const [e, seen] of epochs.entries()) {
      expect(new Set(seen), `epoch ${e}`).toEqual(everyIndex);
      // padding: fewer than worldSize repeats, per part of the epoch
      expect(seen.length - n, `epoch ${e}`).toBeLessThan(e === 1 ? 4 + 3 : e === 0 ? 4 : 3);
    }
    // the resumed part still reads shards by span: 12 spans over 3 ranks
    for (const l of [0, 1, 2].map(
      (rank) => new DataLoader(ds, { ...opts, rank, worldSize: 3, resumeFrom: state }),
    )) {
      const part = await take(l);
      expect(shares(part).bytes).toBeLessThanOrEqual(0.4);
    }
  });
});
