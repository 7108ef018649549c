// `pnpm bench dataloader [--scale F] [--reps N]`: what the DataLoader itself buys, in one process.
// 1. read-ahead: a 10 ms-latency async dataset (I/O-like, overlappable), batch 32, a simulated
//    10 ms training step per batch. Rows: a sequential loop (await each get); Promise.all per
//    batch (the careful hand-written competitor); the DataLoader with prefetchBatches 0 (the next
//    batch loads during the step) and 2 (three batches ahead). Figures: wall time, samples/s,
//    speed-up over the sequential loop, the consumer's stall share (time waiting for data / wall).
// 2. batch → tensors: in-memory samples { image 64x64 Uint8, tabular 16 floats, label }, batch 32,
//    drained as fitDataset takes them (tensors made then disposed), TF.js cpu backend. Ours:
//    DataLoader (toFloat32 normalisation in collate) + batchToTensors. tfjs-data: the usual
//    tf.data.generator → .map(sample → tensors, normalised) → .batch(32).
// 3. shuffle: one epoch order of 1,000,000 samples materialised (shuffledOrder: our
//    IndexPermutation, a Feistel network over Philox4x32, reproducible on every machine) against
//    Fisher–Yates on Math.random (not reproducible), for the cost of it. The DataLoader itself
//    never materialises the order (it reads the permutation position by position).
// Medians over --reps; ratios are medians of per-rep ratios (pairs run back to back).
import { DataLoader, fromArray, fromLoader, shuffledOrder } from '@medfusion/core';
import { batchToTensors } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { numArg } from './_args.js';

const SCALE = numArg('scale', 1);
const REPS = Math.max(1, Math.floor(numArg('reps', 3)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const now = () => performance.now();
const rows: Record<string, string | number>[] = [];

// ---- 1. read-ahead ---------------------------------------------------------------------------
const N1 = Math.max(64, Math.round(640 * SCALE));
const LATENCY = 10;
const STEP = 10;
const BS = 32;
const slow = fromLoader(N1, async (i) => {
  await sleep(LATENCY);
  return { x: Float32Array.of(i, i + 1, i + 2, i + 3), label: i % 10 };
});

async function sequential(): Promise<{ wall: number; stall: number }> {
  const t0 = now();
  let stall = 0;
  for (let b = 0; b * BS < N1; b++) {
    const w = now();
    const samples = [];
    for (let i = b * BS; i < Math.min(N1, (b + 1) * BS); i++) samples.push(await slow.get(i));
    stall += now() - w;
    await sleep(STEP);
  }
  return { wall: now() - t0, stall };
}

async function promiseAllPerBatch(): Promise<{ wall: number; stall: number }> {
  const t0 = now();
  let stall = 0;
  for (let b = 0; b * BS < N1; b++) {
    const w = now();
    const ids = [];
    for (let i = b * BS; i < Math.min(N1, (b + 1) * BS); i++) ids.push(i);
    await Promise.all(ids.map((i) => slow.get(i)));
    stall += now() - w;
    await sleep(STEP);
  }
  return { wall: now() - t0, stall };
}

async function loaderRun(prefetchBatches: number): Promise<{ wall: number; stall: number }> {
  const loader = new DataLoader(slow, { batchSize: BS, prefetchBatches });
  const it = loader[Symbol.asyncIterator]();
  const t0 = now();
  let stall = 0;
  for (;;) {
    const w = now();
    const r = await it.next();
    stall += now() - w;
    if (r.done) break;
    await sleep(STEP);
  }
  return { wall: now() - t0, stall };
}

const readAhead: Record<string, { wall: number[]; stall: number[]; speedup: number[] }> = {
  'sequential await loop': { wall: [], stall: [], speedup: [] },
  'Promise.all per batch': { wall: [], stall: [], speedup: [] },
  'DataLoader prefetchBatches 0': { wall: [], stall: [], speedup: [] },
  'DataLoader prefetchBatches 2': { wall: [], stall: [], speedup: [] },
};
for (let r = 0; r < REPS; r++) {
  const s = await sequential();
  const p = await promiseAllPerBatch();
  const a = await loaderRun(0);
  const b = await loaderRun(2);
  for (const [k, v] of [
    ['sequential await loop', s],
    ['Promise.all per batch', p],
    ['DataLoader prefetchBatches 0', a],
    ['DataLoader prefetchBatches 2', b],
  ] as const) {
    readAhead[k]!.wall.push(v.wall);
    readAhead[k]!.stall.push(v.stall / v.wall);
    readAhead[k]!.speedup.push(s.wall / v.wall);
  }
}
for (const [strategy, v] of Object.entries(readAhead)) {
  const wallMs = median(v.wall);
  rows.push({
    part: 'read-ahead',
    strategy,
    samples: N1,
    wallMs: Math.round(wallMs),
    samplesPerSec: Math.round((N1 / wallMs) * 1000),
    speedup: Number(median(v.speedup).toFixed(2)),
    stallShare: Number(median(v.stall).toFixed(3)),
  });
}

// ---- 2. batch → tensors ----------------------------------------------------------------------
await tf.setBackend('cpu');
const N2 = Math.max(256, Math.round(2048 * SCALE));
const samples = Array.from({ length: N2 }, (_, i) => ({
  image: Uint8Array.from({ length: 64 * 64 }, (_, j) => (i * 31 + j) & 255),
  tabular: Float32Array.from({ length: 16 }, (_, j) => i * 0.01 + j),
  label: i % 10,
}));

async function ours(): Promise<number> {
  const loader = new DataLoader(fromArray(samples), {
    batchSize: BS,
    toFloat32: { scale: 1 / 255 },
  });
  const t0 = now();
  for await (const batch of loader) {
    const t = batchToTensors(batch);
    tf.dispose(Object.values(t));
  }
  return now() - t0;
}

async function tfData(): Promise<number> {
  const ds = tf.data
    .generator(function* () {
      for (const s of samples) yield s;
    })
    .map((s) => {
      const { image, tabular, label } = s as (typeof samples)[number];
      return tf.tidy(() => ({
        image: tf.tensor(image, [64 * 64], 'float32').div(255),
        tabular: tf.tensor(tabular),
        label: tf.scalar(label, 'int32'),
      }));
    })
    .batch(BS);
  const t0 = now();
  await ds.forEachAsync((b) => tf.dispose(Object.values(b as Record<string, tf.Tensor>)));
  return now() - t0;
}

const t2 = { ours: [] as number[], tfData: [] as number[], ratio: [] as number[] };
await ours(); // warm-up both
await tfData();
for (let r = 0; r < REPS; r++) {
  const a = await tfData();
  const b = await ours();
  t2.tfData.push(a);
  t2.ours.push(b);
  t2.ratio.push(a / b);
}
const leftover = tf.memory().numTensors;
for (const [strategy, times] of [
  ['tfjs-data generator.map.batch', t2.tfData],
  ['DataLoader + batchToTensors', t2.ours],
] as const) {
  const wallMs = median(times);
  rows.push({
    part: 'batch-to-tensors',
    strategy,
    samples: N2,
    wallMs: Math.round(wallMs),
    samplesPerSec: Math.round((N2 / wallMs) * 1000),
    speedup: strategy.startsWith('DataLoader') ? Number(median(t2.ratio).toFixed(2)) : 1,
  });
}

// ---- 3. shuffle ------------------------------------------------------------------------------
const N3 = Math.max(10_000, Math.round(1_000_000 * SCALE));
function mathRandomShuffle(n: number): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
  return a;
}
const t3 = { philox: [] as number[], random: [] as number[], ratio: [] as number[] };
shuffledOrder(N3, 1, 0);
mathRandomShuffle(N3);
for (let r = 0; r < REPS; r++) {
  let t0 = now();
  mathRandomShuffle(N3);
  const a = now() - t0;
  t0 = now();
  shuffledOrder(N3, 1, r);
  const b = now() - t0;
  t3.random.push(a);
  t3.philox.push(b);
  t3.ratio.push(a / b);
}
rows.push({
  part: 'shuffle',
  strategy: 'Math.random Fisher–Yates',
  samples: N3,
  wallMs: Number(median(t3.random).toFixed(1)),
  speedup: 1,
});
rows.push({
  part: 'shuffle',
  strategy: 'IndexPermutation materialised (ours)',
  samples: N3,
  wallMs: Number(median(t3.philox).toFixed(1)),
  speedup: Number(median(t3.ratio).toFixed(2)),
});

// ---- report ----------------------------------------------------------------------------------
const cols = ['part', 'strategy', 'samples', 'wallMs', 'samplesPerSec', 'speedup', 'stallShare'];
const table = [cols, ...rows.map((r) => cols.map((c) => (r[c] === undefined ? '' : String(r[c]))))];
const widths = cols.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
for (const r of table) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
console.log(
  `(reps ${REPS}, scale ${SCALE}; tensors left after part 2: ${leftover}; speedup = ratio to the first row of its part)`,
);
console.log(JSON.stringify({ bench: 'dataloader', rows }));
