// `pnpm bench scale [--sizes 1e5,1e6,...] [--rounds N] [--batches N] [--scale F]`: index space at scale.
// Part 1, per data set size n (default 10^5 … 10^9): createCachedDataset 'both' (cacheSize 1000,
//   prefetchSize 10) under a shuffled DataLoader (batch 32) over trivial in-memory loads. Figures:
//   memory beyond cache and window (heap + array buffers after GC, minus the bytes the cache and the
//   prefetch buffer hold), time from building the pipeline to the first batch, and steady
//   samples/s over the next `--batches` batches. Each (n, round) runs in a fresh child process
//   (clean heap); sizes alternate within a round; figures are medians of `--rounds` rounds.
// Part 2, the seed scenario (DESIGN.md, 10,000 samples, cacheSize 1000, the traces of `pnpm bench
//   seed`): Belady's hit rate when the plan is seen through a window of 4 × cacheSize (the
//   engine's default planWindow), against the whole-plan optimum.
// `--scale F` multiplies the batch count and the seed scenario's size (a smoke run: --scale 0.05).
import { spawnSync } from 'node:child_process';
import { beladyHitRate, createCachedDataset, DataLoader, fromLoader } from '@medfusion/core';
import { arg, numArg } from './_args.js';
import { localRepeats, shuffledEpochs } from './_trace.js';

const SCALE = numArg('scale', 1);
const ROUNDS = Math.max(1, Math.floor(numArg('rounds', 5)));
const BATCHES = Math.max(10, Math.round(numArg('batches', 200) * SCALE));
const SIZES = (arg('sizes') ?? '1e5,1e6,1e7,1e8,1e9').split(',').map((s) => Math.round(Number(s)));
const BATCH = 32;
const CACHE = 1000;
const PREFETCH = 10;

interface One {
  n: number;
  memoryBytes: number;
  cacheBytes: number;
  firstBatchMs: number;
  samplesPerSec: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
function used(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** One run at size n, in this (child) process. */
async function runOne(n: number): Promise<One> {
  const before = used();
  const t0 = performance.now();
  const source = fromLoader(n, (i) => ({ x: i % 251, label: i & 1 }));
  const ds = createCachedDataset(source, {
    cacheType: 'both',
    cacheSize: CACHE,
    prefetchSize: PREFETCH,
  });
  const loader = new DataLoader(ds, { batchSize: BATCH, shuffle: true, seed: 1 });
  const it = loader[Symbol.asyncIterator]();
  await it.next();
  const firstBatchMs = performance.now() - t0;
  const t1 = performance.now();
  let samples = 0;
  for (let b = 0; b < BATCHES; b++) {
    const r = await it.next();
    if (r.done) break;
    samples += BATCH;
  }
  const steadyMs = performance.now() - t1;
  const cacheBytes = ds.getCacheStats().bytes;
  const memoryBytes = used() - before - cacheBytes;
  await it.return?.();
  await ds.close();
  return { n, memoryBytes, cacheBytes, firstBatchMs, samplesPerSec: (samples / steadyMs) * 1000 };
}

const one = arg('one');
if (one !== undefined) {
  console.log(JSON.stringify(await runOne(Number(one))));
  process.exit(0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
const runs = new Map<number, One[]>(SIZES.map((n) => [n, []]));
const self = new URL(import.meta.url).pathname;
console.log(
  `scale bench: cacheSize ${CACHE}, prefetchSize ${PREFETCH}, batch ${BATCH}, ${BATCHES} steady batches, ` +
    `${ROUNDS} rounds, sizes ${SIZES.join(', ')}`,
);
for (let r = 0; r < ROUNDS; r++) {
  // rotate the order of sizes each round (A B C, B C A, …)
  for (let k = 0; k < SIZES.length; k++) {
    const n = SIZES[(k + r) % SIZES.length]!;
    const child = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        '--expose-gc',
        '--max-old-space-size=8192',
        self,
        '--one',
        String(n),
        '--batches',
        String(BATCHES),
      ],
      { encoding: 'utf8' },
    );
    const last = child.stdout.trim().split('\n').at(-1) ?? '';
    if (child.status !== 0 || !last.startsWith('{')) {
      console.log(`  n=${n} round ${r}: failed (${child.status}) ${child.stderr.slice(-400)}`);
      continue;
    }
    runs.get(n)!.push(JSON.parse(last) as One);
  }
}

const MiB = 1024 * 1024;
const rows: Record<string, string | number>[] = [];
console.log(
  '\n| n | memory beyond cache + window MiB | first batch ms | steady samples/s | rounds |',
);
console.log('|---|---|---|---|---|');
for (const [n, xs] of runs) {
  if (xs.length === 0) continue;
  const mem = xs.map((x) => x.memoryBytes);
  const first = xs.map((x) => x.firstBatchMs);
  const rate = xs.map((x) => x.samplesPerSec);
  console.log(
    `| ${n.toExponential(0)} | ${(median(mem) / MiB).toFixed(2)} ± ${(spread(mem) / MiB).toFixed(2)} | ` +
      `${median(first).toFixed(1)} ± ${spread(first).toFixed(1)} | ` +
      `${Math.round(median(rate))} ± ${Math.round(spread(rate))} | ${xs.length} |`,
  );
  rows.push({
    part: 'scale',
    n,
    memoryBytes: Math.round(median(mem)),
    memorySpreadBytes: Math.round(spread(mem)),
    firstBatchMs: Number(median(first).toFixed(2)),
    firstBatchSpreadMs: Number(spread(first).toFixed(2)),
    samplesPerSec: Math.round(median(rate)),
    samplesPerSecSpread: Math.round(spread(rate)),
    rounds: xs.length,
  });
}

// ---- part 2: windowed plan vs whole plan on the seed traces ---------------------------------
const N = Math.max(1000, Math.round(10_000 * SCALE));
const SEED_CACHE = Math.max(10, Math.round(1000 * SCALE));
const WINDOW = 4 * SEED_CACHE;
console.log(
  `\nseed traces (${N} samples, cacheSize ${SEED_CACHE}): Belady through a window of ${WINDOW} vs the whole plan`,
);
console.log('| trace | windowed hit rate | whole-plan hit rate | difference (points) |');
console.log('|---|---|---|---|');
for (const [trace, order] of [
  ['shuffled-epochs', shuffledEpochs(N, 0x5eed)],
  ['local-repeats', localRepeats(N, Math.round(N / 5), 0x5eed + 1)],
] as const) {
  const whole = beladyHitRate(order, SEED_CACHE, { keySpace: N }).hitRate;
  const windowed = beladyHitRate(order, SEED_CACHE, { keySpace: N, window: WINDOW }).hitRate;
  console.log(
    `| ${trace} | ${(windowed * 100).toFixed(2)} % | ${(whole * 100).toFixed(2)} % | ` +
      `${((whole - windowed) * 100).toFixed(2)} |`,
  );
  rows.push({
    part: 'window',
    trace,
    window: WINDOW,
    cacheSize: SEED_CACHE,
    hitRate: Number(windowed.toFixed(4)),
    beladyHitRate: Number(whole.toFixed(4)),
  });
}
console.log(JSON.stringify({ bench: 'scale', scale: SCALE, rows }));
