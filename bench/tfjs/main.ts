// The page side of `pnpm bench tfjs`: builds each pipeline over the served PNGs and
// measures (a) throughput, batches drained as fitDataset takes them (tensors made and
// disposed, no training), and (b) one epoch of fitDataset on a small model, with the
// share of the epoch spent waiting for data. bench/tfjs.ts drives it with Playwright.
import { DataLoader, fromLoader, PrefetchDataset } from '@medfusion/core';
import { createWorkerExecutor } from '@medfusion/web';
import { toTfDataset } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { type BenchSample, loadSample, SIZE } from './sample.js';

/** What the driver passes to `runBench`. */
export interface BenchConfig {
  /** Origins of the data server; sample i is fetched from origins[i % origins.length]. */
  origins: string[];
  samples: number;
  batchSize: number;
  /** tf.data prefetch(N) and our prefetchSize (a row named `…@auto` or `…@WxP` sets its own). */
  prefetchSize: number | 'auto';
  /** prefetch(N) of the "tf.data tuned" row. */
  tunedPrefetch: number;
  /** Our loads in flight at once (PrefetchDataset numWorkers; see `prefetchSize` for rows' own). */
  concurrency: number | 'auto';
  /** Web Workers in the worker row. */
  workers: number;
  backend: string;
  seed: number;
  /** Rows to run, by name. */
  rows: string[];
  /** Log, per batch of the throughput epoch, the knobs in force and the tuner's estimates. */
  trace?: boolean;
}

/** One row's figures. */
export interface RowResult {
  pipeline: string;
  samplesPerSec: number;
  drainMs: number;
  /** NaN for the fetch-only row (no fit). */
  fitMs: number;
  stallShare: number;
  stepMs: number;
  batches: number;
  /** Most loads in flight at once during the throughput epoch. */
  peakInFlight: number;
}

type Element = { xs: tf.Tensor; ys: tf.Tensor };
interface Iter {
  next(): Promise<IteratorResult<Element>>;
}
interface DatasetLike {
  iterator(): Promise<Iter>;
}
interface Built {
  dataset: DatasetLike;
  close(): Promise<void>;
  /** The engine's knobs and tuner estimates now, for `--trace` (our rows only). */
  knobs?: () => string;
}

/** Loads in flight right now, and the most seen, for the row being measured. */
const flight = { now: 0, peak: 0 };
async function counted<T>(load: () => Promise<T>): Promise<T> {
  flight.now++;
  if (flight.now > flight.peak) flight.peak = flight.now;
  try {
    return await load();
  } finally {
    flight.now--;
  }
}

/** Seeded permutation (mulberry32 + Fisher–Yates) for the tf.data row's shuffle. */
function permutation(n: number, seed: number): Int32Array {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = out[i] as number;
    out[i] = out[j] as number;
    out[j] = t;
  }
  return out;
}

/** tf.data: generator → mapAsync(decode) → prefetch(10) → batch(32). */
function buildTfData(cfg: BenchConfig, prefetch: number): Built {
  const order = permutation(cfg.samples, cfg.seed);
  const dataset = tf.data
    .generator(function* () {
      for (const i of order) yield i;
    })
    .mapAsync(async (i) => {
      const s = await counted(() => loadSample(cfg.origins, i as number));
      return {
        xs: tf.tensor3d(s.image.data, [SIZE, SIZE, 1]),
        ys: tf.tensor1d(s.label),
      } as unknown as tf.TensorContainer;
    })
    .prefetch(prefetch)
    .batch(cfg.batchSize);
  return { dataset: dataset as unknown as DatasetLike, close: async () => {} };
}

/** Ours: DataLoader (seeded shuffle, tells the plan) → PrefetchDataset (in-thread or workers) → toTfDataset. */
async function buildOurs(cfg: BenchConfig, useWorkers: boolean): Promise<Built> {
  const executor = useWorkers
    ? createWorkerExecutor<BenchSample>({
        worker: () =>
          // the worker reads the data origins from its name
          new Worker(new URL('./loader.worker.ts', import.meta.url), {
            type: 'module',
            name: JSON.stringify(cfg.origins),
          }),
        poolSize: cfg.workers,
        // the pool runs all `concurrency` loads at once, not 16 per worker with the rest queued
        concurrency: Math.ceil(inFlight(cfg) / cfg.workers),
      })
    : undefined;
  if (executor) {
    // start-up is not part of the measurement (tf.data has none); bound the wait
    const until = performance.now() + 20_000;
    while (executor.stats().readyWorkers < cfg.workers) {
      if (performance.now() > until) throw new Error('workers did not start within 20 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const source = fromLoader<BenchSample>(cfg.samples, (i, signal) =>
    counted(() => loadSample(cfg.origins, i, signal)),
  );
  const prefetched = new PrefetchDataset(source, {
    prefetchSize: cfg.prefetchSize,
    numWorkers: cfg.concurrency,
    ...(executor
      ? {
          executor: {
            run: (i: number, signal: AbortSignal) => counted(() => executor.run(i, signal)),
          },
        }
      : {}),
  });
  const loader = new DataLoader(prefetched, {
    batchSize: cfg.batchSize,
    shuffle: true,
    seed: cfg.seed,
    // the loader's own look-ahead ((prefetchBatches + 1) × batch gets) must not cap the loads
    // in flight below `concurrency`
    prefetchBatches: Math.max(2, Math.ceil(inFlight(cfg) / cfg.batchSize) - 1),
  });
  const dataset = toTfDataset(loader, { xs: 'image', ys: 'label' });
  return {
    dataset: dataset as unknown as DatasetLike,
    knobs: () => {
      const s = prefetched.getCacheStats();
      const t = s.tuning;
      return (
        `w ${t?.numWorkers} p ${t?.prefetchSize} lat ${t?.latencyEstimateMs?.toFixed(1) ?? '-'} ` +
        `demand/s ${t?.demandPerSec?.toFixed(0) ?? '-'} stall ${s.stallMs.toFixed(0)} ms ` +
        `inflight ${flight.now}`
      );
    },
    close: async () => {
      await prefetched.close();
      await executor?.close();
    },
  };
}

/** Most loads in flight `cfg` may run: its `concurrency`, or what `'auto'` may go to (64). */
function inFlight(cfg: BenchConfig): number {
  return cfg.concurrency === 'auto' ? 64 : cfg.concurrency;
}

/**
 * A row's knobs from its name: `ours-in-thread@16x32` runs 16 loads in flight with a
 * prefetch depth of 32, `ours-in-thread@auto` leaves both 'auto' (the autotune rows).
 */
function withKnobs(name: string, cfg: BenchConfig): [string, BenchConfig] {
  const [base = name, knobs] = name.split('@');
  if (knobs === undefined) return [name, cfg];
  if (knobs === 'auto') return [base, { ...cfg, concurrency: 'auto', prefetchSize: 'auto' }];
  const [w, p] = knobs.split('x').map(Number);
  if (!(Number.isInteger(w) && w! > 0 && Number.isInteger(p) && p! > 0))
    throw new RangeError(`row ${name}: knobs are @auto or @<loads in flight>x<prefetch>`);
  return [base, { ...cfg, concurrency: w!, prefetchSize: p! }];
}

function build(row: string, rowCfg: BenchConfig): Promise<Built> {
  const [name, cfg] = withKnobs(row, rowCfg);
  if (name === 'tfjs-data') return Promise.resolve(buildTfData(cfg, Number(cfg.prefetchSize)));
  if (name === 'tfjs-data-tuned') return Promise.resolve(buildTfData(cfg, cfg.tunedPrefetch));
  if (name === 'ours-in-thread') return buildOurs(cfg, false);
  if (name === 'ours-workers') return buildOurs(cfg, true);
  throw new RangeError(`unknown row ${name}`);
}

/** (a) drain one epoch as fitDataset would: take each batch, make its tensors, dispose them. */
async function drain(built: Built, trace = false): Promise<{ samples: number; ms: number }> {
  const t0 = performance.now();
  const it = await built.dataset.iterator();
  let samples = 0;
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    samples += r.value.xs.shape[0] as number;
    tf.dispose([r.value.xs, r.value.ys]);
    if (trace && built.knobs) {
      console.log(`[bench] trace ${(performance.now() - t0).toFixed(0)} ms ${built.knobs()}`);
    }
  }
  return { samples, ms: performance.now() - t0 };
}

function makeModel(): tf.LayersModel {
  const model = tf.sequential({
    layers: [
      tf.layers.conv2d({
        inputShape: [SIZE, SIZE, 1],
        filters: 8,
        kernelSize: 3,
        strides: 2,
        activation: 'relu',
      }),
      tf.layers.maxPooling2d({ poolSize: 2 }),
      tf.layers.conv2d({ filters: 16, kernelSize: 3, activation: 'relu' }),
      tf.layers.flatten(),
      tf.layers.dense({ units: 1, activation: 'sigmoid' }),
    ],
  });
  model.compile({ optimizer: tf.train.adam(1e-3), loss: 'binaryCrossentropy' });
  return model;
}

/** (b) one epoch of fitDataset; the time spent inside the iterator's next() is data stall. */
async function fitEpoch(ds: DatasetLike): Promise<{ ms: number; waitMs: number; batches: number }> {
  let waitMs = 0;
  let batches = 0;
  const timed = {
    iterator: async () => {
      const it = await ds.iterator();
      return {
        next: async () => {
          const t = performance.now();
          const r = await it.next();
          waitMs += performance.now() - t;
          if (!r.done) batches++;
          return r;
        },
      };
    },
  };
  const model = makeModel();
  const t0 = performance.now();
  await model.fitDataset(timed as unknown as tf.data.Dataset<tf.TensorContainer>, {
    epochs: 1,
    verbose: 0,
  });
  const ms = performance.now() - t0;
  model.dispose();
  return { ms, waitMs, batches };
}

async function warmUp(cfg: BenchConfig): Promise<void> {
  // compile the model's kernels and warm fetch/decode, outside every measurement
  const model = makeModel();
  const xs = tf.zeros([cfg.batchSize, SIZE, SIZE, 1]);
  const ys = tf.zeros([cfg.batchSize, 1]);
  await model.fit(xs, ys, { epochs: 2, batchSize: cfg.batchSize, verbose: 0 });
  tf.dispose([xs, ys]);
  model.dispose();
  await Promise.all(Array.from({ length: 8 }, (_, i) => loadSample(cfg.origins, i)));
}

/**
 * The transport's ceiling: fetch every PNG (body read, no decode, no tensors) with
 * `concurrency` requests in flight — what any pipeline that makes one request per sample
 * can at most reach in this browser on this machine.
 */
async function fetchOnly(cfg: BenchConfig): Promise<{ samples: number; ms: number }> {
  let next = 0;
  const t0 = performance.now();
  const lane = async () => {
    for (;;) {
      const i = next++;
      if (i >= cfg.samples) return;
      await counted(async () => {
        const res = await fetch(`${cfg.origins[i % cfg.origins.length]}/data/${i}.png`);
        await res.arrayBuffer();
      });
    }
  };
  await Promise.all(Array.from({ length: inFlight(cfg) }, lane));
  return { samples: cfg.samples, ms: performance.now() - t0 };
}

async function runBench(cfg: BenchConfig): Promise<RowResult[]> {
  await tf.setBackend(cfg.backend);
  await tf.ready();
  await warmUp(cfg);
  const out: RowResult[] = [];
  for (const name of cfg.rows) {
    status(`${name}: throughput`);
    if (name === 'fetch-only') {
      flight.peak = 0;
      const f = await fetchOnly(cfg);
      out.push({
        pipeline: name,
        samplesPerSec: (f.samples / f.ms) * 1000,
        drainMs: f.ms,
        fitMs: Number.NaN,
        stallShare: Number.NaN,
        stepMs: Number.NaN,
        batches: 0,
        peakInFlight: flight.peak,
      });
      continue;
    }
    const a = await build(name, cfg);
    flight.peak = 0;
    const drained = await drain(a, cfg.trace);
    const peakInFlight = flight.peak;
    await a.close();
    status(`${name}: fitDataset`);
    const b = await build(name, cfg);
    const fitted = await fitEpoch(b.dataset);
    await b.close();
    out.push({
      pipeline: name,
      samplesPerSec: (drained.samples / drained.ms) * 1000,
      drainMs: drained.ms,
      fitMs: fitted.ms,
      stallShare: fitted.waitMs / fitted.ms,
      stepMs: (fitted.ms - fitted.waitMs) / Math.max(1, fitted.batches),
      batches: fitted.batches,
      peakInFlight,
    });
  }
  status('done');
  return out;
}

function status(text: string): void {
  const el = document.getElementById('status');
  if (el) el.textContent = text;
  console.log(`[bench] ${text}`);
}

(window as unknown as { runBench: typeof runBench }).runBench = runBench;
status('ready');
