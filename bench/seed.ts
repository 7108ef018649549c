// `pnpm bench seed [--scale 0.1] [--trace shuffled-epochs|local-repeats] [--only a,b]`
// The DESIGN.md scenario: 10,000 samples (× scale), each read 2 or 3 times, every load
// 10 ms of overlappable latency (setTimeout), cacheSize 1,000 (× scale), prefetchSize 10,
// numWorkers 2 unless the row says otherwise. The consumer reads the trace one sample at a
// time, like a training loop. Rows marked "(inferred)" are not told the plan: they see
// only the reads, as the reference's prefetcher does; the others get it through setPlan,
// as our DataLoader does. The bound is Belady's misses at the row's cache size × 10 ms /
// the loads the row may run at once.
import {
  beladyHitRate,
  type CreateCachedDatasetOptions,
  createCachedDataset,
} from '@medfusion/core';
import { arg } from './_args.js';
import { type LoadLatency, type SeedSample, seedSource } from './_seedSource.js';
import { localRepeats, maxSpread, shuffledEpochs } from './_trace.js';

const SCALE = Number(arg('scale') ?? 1);
if (!(SCALE > 0 && SCALE <= 1))
  throw new RangeError(`--scale must be in (0, 1], got ${arg('scale')}`);
const N = Math.round(10_000 * SCALE);
const CACHE = Math.round(1000 * SCALE);
const WINDOW = Math.round(2000 * SCALE);
const LATENCY_MS = 10;
const SEED = 0x5eed;

type Sample = SeedSample;

/** Measured latency of the loads (timers overshoot on a busy machine). */
const latency: LoadLatency = { sum: 0, count: 0 };

/** The source: every load takes LATENCY_MS of timer latency (overlappable), abortable. */
const source = seedSource(N, LATENCY_MS, latency);

interface Strategy {
  name: string;
  plan: boolean;
  /** Loads that may run at once (the bound's divisor). */
  concurrency: number;
  options: CreateCachedDatasetOptions<Sample>;
}

const strategies: Strategy[] = [
  { name: 'none', plan: false, concurrency: 1, options: { cacheType: 'none' } },
  {
    name: 'lru',
    plan: false,
    concurrency: 1,
    options: { cacheType: 'lru', cacheSize: CACHE, evictionPolicy: 'lru' },
  },
  {
    name: 'prefetch (inferred)',
    plan: false,
    concurrency: 2,
    options: { cacheType: 'prefetch', prefetchSize: 10, numWorkers: 2 },
  },
  {
    name: 'prefetch',
    plan: true,
    concurrency: 2,
    options: { cacheType: 'prefetch', prefetchSize: 10, numWorkers: 2 },
  },
  {
    name: 'both (inferred)',
    plan: false,
    concurrency: 2,
    options: {
      cacheType: 'both',
      cacheSize: CACHE,
      prefetchSize: 10,
      numWorkers: 2,
      evictionPolicy: 'lru',
    },
  },
  {
    name: 'both',
    plan: true,
    concurrency: 2,
    options: {
      cacheType: 'both',
      cacheSize: CACHE,
      prefetchSize: 10,
      numWorkers: 2,
      evictionPolicy: 'lru',
    },
  },
  {
    name: 'both+belady',
    plan: true,
    concurrency: 2,
    options: {
      cacheType: 'both',
      cacheSize: CACHE,
      prefetchSize: 10,
      numWorkers: 2,
      evictionPolicy: 'belady',
    },
  },
  {
    name: 'best',
    plan: true,
    concurrency: 32,
    options: {
      cacheType: 'both',
      cacheSize: CACHE,
      prefetchSize: 128,
      numWorkers: 32,
      evictionPolicy: 'belady',
    },
  },
];

interface Row {
  trace: string;
  strategy: string;
  planned: boolean;
  cacheSize: number;
  prefetchSize: number;
  numWorkers: number;
  reads: number;
  wallMs: number;
  speedup: number;
  hitRate: number;
  beladyHitRate: number;
  boundMs: number;
  ratioToBound: number;
  /** Mean measured latency of one load in this row. */
  loadMs: number;
  /** Bound with the latency measured in the 'none' row (the platform's real timer latency). */
  timerBoundMs: number;
  ratioToTimerBound: number;
  peakBytes: number;
  stallShare: number;
  prefetchUsed: number;
  prefetchWasted: number;
}

async function runRow(
  traceName: string,
  trace: Int32Array,
  s: Strategy,
  noneLoadMs: number | undefined,
): Promise<Omit<Row, 'speedup'>> {
  latency.sum = 0;
  latency.count = 0;
  const ds = createCachedDataset(source, s.options);
  if (s.plan) ds.setPlan(trace);
  const t0 = performance.now();
  for (let p = 0; p < trace.length; p++) {
    const sample = await ds.get(trace[p]!);
    if (sample.image[0] !== trace[p]) throw new Error(`wrong sample at read ${p}`);
  }
  const wallMs = performance.now() - t0;
  const stats = ds.getCacheStats();
  await ds.close();
  const cacheSize = s.options.cacheType === 'both' || s.options.cacheType === 'lru' ? CACHE : 0;
  const belady = beladyHitRate(trace, cacheSize, { keySpace: N });
  const boundMs = (belady.misses * LATENCY_MS) / s.concurrency;
  const loadMs = latency.count > 0 ? latency.sum / latency.count : 0;
  const timerBoundMs = (belady.misses * (noneLoadMs ?? loadMs)) / s.concurrency;
  return {
    trace: traceName,
    strategy: s.name,
    planned: s.plan,
    cacheSize,
    prefetchSize:
      s.options.cacheType === 'both' || s.options.cacheType === 'prefetch'
        ? typeof s.options.prefetchSize === 'number'
          ? s.options.prefetchSize
          : (stats.tuning?.prefetchSize ?? 0)
        : 0,
    numWorkers: s.concurrency,
    reads: trace.length,
    wallMs,
    hitRate: stats.hitRate,
    beladyHitRate: belady.hitRate,
    boundMs,
    ratioToBound: wallMs / boundMs,
    loadMs,
    timerBoundMs,
    ratioToTimerBound: wallMs / timerBoundMs,
    peakBytes: stats.peakBytes,
    stallShare: stats.stallMs / wallMs,
    prefetchUsed: stats.prefetch.used,
    prefetchWasted: stats.prefetch.wasted,
  };
}

const traces: [string, Int32Array][] = [
  ['shuffled-epochs', shuffledEpochs(N, SEED)],
  ['local-repeats', localRepeats(N, WINDOW, SEED + 1)],
];
const onlyTrace = arg('trace');
const only = arg('only')?.split(',');

const rows: Row[] = [];
console.log(
  `seed bench: ${N} samples, cacheSize ${CACHE}, ${LATENCY_MS} ms per load, ` +
    `local-repeats window ${WINDOW} (scale ${SCALE})`,
);
for (const [name, trace] of traces) {
  if (onlyTrace && onlyTrace !== name) continue;
  console.log(
    `\n${name}: ${trace.length} reads, largest spread of one sample's reads ${maxSpread(trace, N)}`,
  );
  let noneMs: number | undefined;
  let noneLoadMs: number | undefined;
  for (const s of strategies) {
    if (only && !only.includes(s.name) && s.name !== 'none') continue;
    const r = await runRow(name, trace, s, noneLoadMs);
    noneMs ??= r.wallMs;
    noneLoadMs ??= r.loadMs;
    const row: Row = { ...r, speedup: noneMs / r.wallMs };
    rows.push(row);
    console.log(
      `  ${row.strategy.padEnd(20)} ${(row.wallMs / 1000).toFixed(2).padStart(8)} s ` +
        `${row.speedup.toFixed(2).padStart(6)}x  hit ${(row.hitRate * 100).toFixed(1).padStart(5)} %` +
        `  belady ${(row.beladyHitRate * 100).toFixed(1).padStart(5)} %` +
        `  bound ${(row.boundMs / 1000).toFixed(2).padStart(7)} s  ×${row.ratioToBound.toFixed(2)}` +
        `  (load ${row.loadMs.toFixed(1)} ms, ×${row.ratioToTimerBound.toFixed(2)} of the measured-latency bound)` +
        `  peak ${(row.peakBytes / 1024 / 1024).toFixed(2)} MiB  stall ${(row.stallShare * 100).toFixed(0)} %`,
    );
  }
}

console.log(
  '\n| trace | strategy | wall s | speed-up | hit rate | Belady hit rate | bound s | ratio to bound | ' +
    'ratio to measured-latency bound | peak MiB |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.trace} | ${r.strategy} | ${(r.wallMs / 1000).toFixed(2)} | ${r.speedup.toFixed(2)}x | ` +
      `${(r.hitRate * 100).toFixed(1)} % | ${(r.beladyHitRate * 100).toFixed(1)} % | ` +
      `${(r.boundMs / 1000).toFixed(2)} | ${r.ratioToBound.toFixed(2)} | ${r.ratioToTimerBound.toFixed(2)} | ` +
      `${(r.peakBytes / 1024 / 1024).toFixed(2)} |`,
  );
}
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
console.log(
  JSON.stringify({
    bench: 'seed',
    scale: SCALE,
    rows: rows.map((r) => ({
      ...r,
      wallMs: round(r.wallMs, 1),
      speedup: round(r.speedup, 3),
      hitRate: round(r.hitRate),
      beladyHitRate: round(r.beladyHitRate),
      boundMs: round(r.boundMs, 1),
      ratioToBound: round(r.ratioToBound, 3),
      loadMs: round(r.loadMs, 2),
      timerBoundMs: round(r.timerBoundMs, 1),
      ratioToTimerBound: round(r.ratioToTimerBound, 3),
      stallShare: round(r.stallShare),
    })),
  }),
);
