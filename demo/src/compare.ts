import { createCachedDataset, type Dataset, fromLoader, isPlanAware } from '@medfusion/web';
import type { Trace } from './settings.js';

/** The trace of the reference's published scenario: its figures apply to this trace only. */
export const REFERENCE_TRACE: Trace = 'local-repeats';

/** One row of the comparison: a strategy and its knobs. */
export interface CompareRow {
  /** Label shown in the table. */
  name: string;
  /** `createCachedDataset`'s cacheType. */
  cacheType: 'none' | 'lru' | 'prefetch' | 'both';
  /** Give the dataset the trace ahead (plan-aware prefetch and eviction). */
  plan: boolean;
  /** Concurrent loads. */
  numWorkers: number;
  /** Samples prefetched ahead. */
  prefetchSize: number;
  /** The reference's published speed-up (SEED.md), when it has one. */
  reference: number | null;
}

/** The rows: the reference's four strategies with its knobs, then ours with the plan. */
export const COMPARE_ROWS: CompareRow[] = [
  { name: 'none', cacheType: 'none', plan: false, numWorkers: 2, prefetchSize: 10, reference: 1.0 },
  { name: 'lru', cacheType: 'lru', plan: false, numWorkers: 2, prefetchSize: 10, reference: 2.2 },
  {
    name: 'prefetch',
    cacheType: 'prefetch',
    plan: false,
    numWorkers: 2,
    prefetchSize: 10,
    reference: 1.4,
  },
  { name: 'both', cacheType: 'both', plan: false, numWorkers: 2, prefetchSize: 10, reference: 2.9 },
  {
    name: 'prefetch + plan',
    cacheType: 'prefetch',
    plan: true,
    numWorkers: 2,
    prefetchSize: 10,
    reference: null,
  },
  {
    name: 'both + plan',
    cacheType: 'both',
    plan: true,
    numWorkers: 2,
    prefetchSize: 10,
    reference: null,
  },
  {
    name: 'plan, 32 in flight',
    cacheType: 'both',
    plan: true,
    numWorkers: 32,
    prefetchSize: 128,
    reference: null,
  },
];

/** What one row measured. */
export interface CompareResult {
  /** The row. */
  row: CompareRow;
  /** Wall time of the whole trace, ms. */
  wallMs: number;
  /** Wall time of `none` divided by this row's. */
  speedup: number;
  /** The cache's hit rate (0 without a cache). */
  hitRate: number;
  /** Loads that reached the simulated source. */
  loads: number;
}

/** mulberry32: small seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffleInPlace(a: number[], rand: () => number): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = a[i] as number;
    a[i] = a[j] as number;
    a[j] = t;
  }
}

/**
 * The seed scenario's access trace: every sample visited 2 or 3 times (seeded).
 * `shuffled-epochs`: each pass a fresh permutation. `local-repeats`: repeats
 * stay within a window of `length / 5` accesses (2,000 at full scale).
 */
export function seedTrace(length: number, trace: Trace, seed = 1): number[] {
  const rand = rng(seed);
  const visits = Array.from({ length }, () => (rand() < 0.5 ? 2 : 3));
  const out: number[] = [];
  if (trace === 'shuffled-epochs') {
    for (let pass = 0; pass < 3; pass++) {
      const members: number[] = [];
      for (let i = 0; i < length; i++) if ((visits[i] as number) > pass) members.push(i);
      shuffleInPlace(members, rand);
      out.push(...members);
    }
    return out;
  }
  const window = Math.max(10, Math.round(length / 5));
  const order = Array.from({ length }, (_, i) => i);
  shuffleInPlace(order, rand);
  let chunk: number[] = [];
  for (const i of order) {
    for (let v = 0; v < (visits[i] as number); v++) chunk.push(i);
    if (chunk.length >= window) {
      shuffleInPlace(chunk, rand);
      out.push(...chunk);
      chunk = [];
    }
  }
  shuffleInPlace(chunk, rand);
  out.push(...chunk);
  return out;
}

/** Options of {@link runComparison}. */
export interface CompareOptions {
  /** Samples in the scenario (10,000 at full scale). */
  samples: number;
  /** Which trace. */
  trace: Trace;
  /** Latency of one load, ms. */
  latencyMs?: number;
  /** Called after each row. */
  onRow: (result: CompareResult) => void;
  /** Stops between accesses. */
  signal: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * Run the trace once per row against a source whose every load costs
 * `latencyMs` (I/O-like, overlappable), reading one sample at a time like the
 * reference's training loop. Cache size is a tenth of the samples (1,000 of
 * 10,000 at full scale).
 */
export async function runComparison(o: CompareOptions): Promise<CompareResult[]> {
  const latency = o.latencyMs ?? 10;
  const trace = seedTrace(o.samples, o.trace);
  const cacheSize = Math.max(1, Math.round(o.samples / 10));
  const results: CompareResult[] = [];
  let noneMs = 0;
  for (const row of COMPARE_ROWS) {
    let loads = 0;
    const source: Dataset<{ index: number; payload: Float32Array }> = fromLoader(
      o.samples,
      async (index, signal) => {
        await sleep(latency, signal);
        loads++;
        return { index, payload: new Float32Array(16) };
      },
    );
    const ds = createCachedDataset(source, {
      cacheType: row.cacheType,
      cacheSize,
      prefetchSize: row.prefetchSize,
      numWorkers: row.numWorkers,
    }) as Dataset<{ index: number }> & {
      getCacheStats?: () => { hitRate?: number };
      close?: () => void | Promise<void>;
    };
    if (row.plan && isPlanAware(ds)) ds.setPlan(trace);
    const t0 = performance.now();
    try {
      for (const index of trace) {
        if (o.signal.aborted) throw o.signal.reason;
        const s = await ds.get(index);
        if (s.index !== index) throw new Error(`${row.name}: asked ${index}, got ${s.index}`);
      }
    } finally {
      await ds.close?.();
    }
    const wallMs = performance.now() - t0;
    if (row.cacheType === 'none') noneMs = wallMs;
    const result: CompareResult = {
      row,
      wallMs,
      speedup: noneMs > 0 ? noneMs / wallMs : 1,
      hitRate: ds.getCacheStats?.().hitRate ?? 0,
      loads,
    };
    results.push(result);
    o.onRow(result);
  }
  return results;
}
