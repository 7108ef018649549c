// `pnpm bench ranks [--scale F] [--rounds N]`: past one machine, in one Node process.
// 1. bytes-per-rank: 200 shards (80-120 samples of 2-6 KB each), 4 ranks, 3 epochs; a rank is
//    charged, per shard it reads, the bytes from its first to its last sample there (what merged
//    range requests fetch at most). ShardOrder with spans: 12 (a rank reads whole spans) against
//    spans: 1 (every rank strides over every window). Figure: the largest share of the data
//    set's bytes any rank fetched in an epoch (ideal 1 / worldSize = 0.25).
// 2. mix-proportions: mixDatasets with weights 0.5 / 0.3 / 0.2, 100,000 draws, 5 seeds. Figure:
//    the largest |share − weight| in percentage points.
// 3. mixed-vs-slowest: a DataLoader (batch 32, shuffle) over 3 sources of 2, 5 and 10 ms
//    latency (setTimeout), each behind its own prefetching cache, mixed 0.5 / 0.3 / 0.2, against
//    the same loader over the slowest source alone, alternating in rounds. Figure: samples/s of
//    the mix over the slowest's (median of the per-round ratios, with min–max).
// Prints a table, then one JSON line {"bench":"ranks","rows":[...]} as the last line.
import {
  createCachedDataset,
  DataLoader,
  type Dataset,
  fromLoader,
  mixDatasets,
  ShardLayout,
  ShardOrder,
} from '@medfusion/core';
import { intArg, numArg } from './_args.js';
import { median, round } from './_stats.js';
import { printTable } from './_table.js';

const SCALE = numArg('scale', 1);
const ROUNDS = Math.max(5, intArg('rounds', 5));
const rows: Record<string, string | number>[] = [];
const lines: string[][] = [];

// ---- 1. bytes per rank -----------------------------------------------------------------------
const SHARDS = Math.max(40, Math.round(200 * SCALE));
const WORLD = 4;
const shardSizes = Array.from({ length: SHARDS }, (_, s) => 80 + ((s * 2654435761) % 41));
const layout = new ShardLayout(shardSizes);
const offset = new Float64Array(layout.length + 1);
for (let i = 0; i < layout.length; i++) {
  offset[i + 1] = offset[i]! + 2048 + ((i * 40503) % 4096);
}

function maxShare(spans: number): number {
  let worst = 0;
  for (let epoch = 0; epoch < 3; epoch++) {
    const order = new ShardOrder({ shardSizes, seed: 11, epoch, windowShards: 4, spans });
    for (let rank = 0; rank < WORLD; rank++) {
      const lo = new Map<number, number>();
      const hi = new Map<number, number>();
      for (let q = rank; q < order.length; q += WORLD) {
        const i = order.indexAt(q);
        const s = layout.shardOf(i);
        lo.set(s, Math.min(lo.get(s) ?? i, i));
        hi.set(s, Math.max(hi.get(s) ?? i, i));
      }
      let bytes = 0;
      for (const [s, a] of lo) bytes += offset[hi.get(s)! + 1]! - offset[a]!;
      worst = Math.max(worst, bytes / offset[layout.length]!);
    }
  }
  return worst;
}
for (const spans of [12, 1]) {
  const share = maxShare(spans);
  rows.push({ name: 'bytes-per-rank', worldSize: WORLD, spans, maxShare: round(share, 3) });
  lines.push([
    'bytes-per-rank',
    `${SHARDS} shards, worldSize ${WORLD}, spans ${spans}`,
    `max share ${share.toFixed(3)} (ideal ${(1 / WORLD).toFixed(2)})`,
  ]);
}

// ---- 2. mix proportions ----------------------------------------------------------------------
const WEIGHTS = [0.5, 0.3, 0.2];
const DRAWS = Math.max(10_000, Math.round(100_000 * SCALE));
const constant = (n: number): Dataset<number> => fromLoader(n, (i) => i);
let maxError = 0;
for (const seed of [0, 1, 2, 3, 4]) {
  const mix = mixDatasets([constant(1000), constant(5000), constant(300)], {
    weights: WEIGHTS,
    seed,
    onExhausted: 'repeat',
    length: DRAWS,
  });
  const n = [0, 0, 0];
  for (let i = 0; i < DRAWS; i++) n[mix.sourceOf(i).source]!++;
  for (let j = 0; j < 3; j++) maxError = Math.max(maxError, Math.abs(n[j]! / DRAWS - WEIGHTS[j]!));
}
rows.push({
  name: 'mix-proportions',
  draws: DRAWS,
  seeds: 5,
  maxErrorPct: round(maxError * 100, 3),
});
lines.push([
  'mix-proportions',
  `${DRAWS} draws, weights 0.5/0.3/0.2, 5 seeds`,
  `max error ${(maxError * 100).toFixed(3)} points`,
]);

// ---- 3. mixed loader vs the slowest source ----------------------------------------------------
const N = Math.max(640, Math.round(3200 * SCALE));
const LATENCIES = [2, 5, 10];
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const slow = (ms: number) =>
  createCachedDataset(
    fromLoader(N, async (i) => {
      await sleep(ms);
      return { x: Float32Array.of(i), label: i % 10 };
    }),
    { cacheType: 'both', cacheSize: 256, prefetchSize: 64, numWorkers: 64 },
  );

async function rate(dataset: Dataset<{ x: Float32Array; label: number }>): Promise<number> {
  const loader = new DataLoader(dataset, { batchSize: 32, shuffle: true, seed: 3 });
  const t0 = performance.now();
  let n = 0;
  for await (const b of loader) n += b.label!.data.length;
  return (n / (performance.now() - t0)) * 1000;
}

async function mixedRate(): Promise<number> {
  const sources = LATENCIES.map(slow);
  const mix = mixDatasets(sources, { weights: WEIGHTS, seed: 3, onExhausted: 'repeat', length: N });
  const r = await rate(mix);
  await Promise.all(sources.map((s) => s.close()));
  return r;
}

async function slowestRate(): Promise<number> {
  const source = slow(Math.max(...LATENCIES));
  const r = await rate(source);
  await source.close();
  return r;
}

const mixed: number[] = [];
const slowest: number[] = [];
const ratios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // alternate which goes first
  const [a, b] = r % 2 === 0 ? [await mixedRate(), await slowestRate()] : [0, 0];
  const [c, d] = r % 2 === 1 ? [await slowestRate(), await mixedRate()] : [0, 0];
  const m = r % 2 === 0 ? a : d;
  const s = r % 2 === 0 ? b : c;
  mixed.push(m);
  slowest.push(s);
  ratios.push(m / s);
}
const ratio = median(ratios);
rows.push({
  name: 'mixed-vs-slowest',
  samples: N,
  latenciesMs: LATENCIES.join('/'),
  mixedSamplesPerSec: Math.round(median(mixed)),
  slowestSamplesPerSec: Math.round(median(slowest)),
  ratio: round(ratio, 2),
  ratioMin: round(Math.min(...ratios), 2),
  ratioMax: round(Math.max(...ratios), 2),
});
lines.push([
  'mixed-vs-slowest',
  `${N} samples, 3 sources of ${LATENCIES.join('/')} ms, ${ROUNDS} rounds`,
  `${Math.round(median(mixed))} vs ${Math.round(median(slowest))} samples/s: ratio ${ratio.toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
]);

printTable(['row', 'setting', 'figure'], lines);
console.log(JSON.stringify({ bench: 'ranks', rows }));
