// Runs in Chromium (served by the Vite server of bench/store.ts): store
// throughput (OpfsStore, IdbStore, idb-keyval in the same page) and one epoch
// from disk versus one over the throttled HTTP server.
import { createCachedDataset, type Dataset, fromLoader, IdbStore, OpfsStore } from '@medfusion/web';
import { deleteDB } from 'idb';
import { createStore, clear as kvClear, get as kvGet, set as kvSet } from 'idb-keyval';

/** What bench/store.ts asks for. */
export interface StoreBenchConfig {
  /** [count, bytes] per throughput size. */
  sizes: [number, number][];
  /** Operations in flight in the throughput runs. */
  concurrency: number;
  /** Base URL of the throttled server. */
  netUrl: string;
  /** Samples per epoch. */
  epochSamples: number;
  /** Bytes per epoch sample. */
  epochSize: number;
  /** Prefetch depths tried for the network epoch (on `netSweepSamples` samples). */
  netSweep: number[];
  /** Samples in each network sweep run. */
  netSweepSamples: number;
  /** Prefetch depths tried for the disk epoch (full epochs). */
  diskSweep: number[];
  /** Timed read rounds per store and size (the median is reported). */
  readRounds: number;
  /** Which parts to run. */
  only: 'all' | 'throughput' | 'epoch';
}

/** One throughput measurement. */
export interface ThroughputRow {
  store: string;
  op: 'put' | 'get';
  count: number;
  bytes: number;
  ms: number;
}

/** One epoch measurement. */
export interface EpochRow {
  source: 'network' | 'disk';
  prefetch: number;
  samples: number;
  ms: number;
  /** Samples served from disk (disk rows). */
  diskHits: number;
  /** True for the full epoch with the best setting (others are the sweep). */
  best: boolean;
}

const log = (m: string) => console.log(`[bench] ${m}`);
const idle = () => new Promise((r) => setTimeout(r, 1500));
const pause = () => new Promise((r) => setTimeout(r, 200));

function permutation(n: number, seed: number): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  let s = seed >>> 0;
  for (let i = n - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
  return a;
}

async function pump(
  n: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        await fn(i);
      }
    }),
  );
  return performance.now() - t0;
}

interface KV {
  name: string;
  put(k: string, v: Uint8Array): Promise<unknown>;
  get(k: string): Promise<Uint8Array | undefined>;
  dispose(): Promise<void>;
}

function stores(): KV[] {
  const opfs = new OpfsStore({ dir: 'bench-store-opfs', maxBytes: 4 * 2 ** 30 });
  const idb = new IdbStore({ name: 'bench-store-idb', maxBytes: 4 * 2 ** 30 });
  const kv = createStore('bench-store-keyval', 'kv');
  // idb-keyval keeps its connection open (deleteDB would wait forever): clear only.
  return [
    {
      name: 'OpfsStore',
      put: (k, v) => opfs.put(k, v),
      get: (k) => opfs.get(k),
      dispose: async () => {
        await opfs.clear();
        await opfs.close();
        const root = await navigator.storage.getDirectory();
        await root.removeEntry('bench-store-opfs', { recursive: true }).catch(() => {});
      },
    },
    {
      name: 'IdbStore',
      put: (k, v) => idb.put(k, v),
      get: (k) => idb.get(k),
      dispose: async () => {
        await idb.close();
        await deleteDB('bench-store-idb');
      },
    },
    {
      name: 'idb-keyval',
      put: (k, v) => kvSet(k, v, kv),
      get: (k) => kvGet<Uint8Array>(k, kv),
      dispose: () => kvClear(kv),
    },
  ];
}

async function throughput(cfg: StoreBenchConfig): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const [count, bytes] of cfg.sizes) {
    const values = Array.from({ length: 16 }, (_, v) => new Uint8Array(bytes).fill(v + 1));
    const all = stores();
    // puts: one store at a time, so they never compete for the disk
    for (const s of all) {
      await idle(); // let the previous store's background work (compaction, deletes) settle
      const putMs = await pump(count, cfg.concurrency, (i) => s.put(`k${i}`, values[i % 16]!));
      rows.push({ store: s.name, op: 'put', count, bytes, ms: putMs });
      log(`${s.name} ${bytes} B x ${count}: put ${putMs.toFixed(0)} ms`);
    }
    await idle();
    // reads: a warm-up pass each, then cfg.readRounds rounds; round r starts with a different
    // store (alternating order) and reads every key in its own shuffled order, checked; the
    // median round per store is reported
    const read = (s: KV, seed: number) => {
      const order = permutation(count, seed);
      let bad = 0;
      return pump(count, cfg.concurrency, async (n) => {
        const i = order[n]!;
        const v = await s.get(`k${i}`);
        if (!v || v.length !== bytes || v[0] !== (i % 16) + 1 || v[bytes - 1] !== (i % 16) + 1)
          bad++;
      }).then((ms) => {
        if (bad) throw new Error(`${s.name}: ${bad} reads returned wrong data`);
        return ms;
      });
    };
    for (const s of all) await read(s, 98);
    const rounds = new Map<string, number[]>(all.map((s) => [s.name, []]));
    for (let r = 0; r < cfg.readRounds; r++) {
      for (let j = 0; j < all.length; j++) {
        const s = all[(r + j) % all.length]!;
        await pause();
        rounds.get(s.name)!.push(await read(s, 99 + r));
      }
    }
    for (const s of all) {
      const ms = rounds.get(s.name)!.sort((a, b) => a - b);
      const getMs = ms[ms.length >> 1]!;
      log(
        `${s.name} ${bytes} B x ${count}: get rounds ${ms.map((m) => m.toFixed(0)).join(' ')} ms, median ${getMs.toFixed(0)}`,
      );
      rows.push({ store: s.name, op: 'get', count, bytes, ms: getMs });
    }
    for (const s of all) await s.dispose();
  }
  return rows;
}

function httpSource(cfg: StoreBenchConfig): Dataset<Uint8Array> {
  return fromLoader(cfg.epochSamples, async (i, signal) => {
    const res = await fetch(`${cfg.netUrl}/s/${i}`, {
      signal: signal ?? null,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  });
}

const offlineSource = (n: number): Dataset<Uint8Array> =>
  fromLoader(n, () => {
    throw new Error('offline: the network is off in the disk epoch');
  });

async function epoch(
  source: Dataset<Uint8Array>,
  order: number[],
  size: number,
  prefetch: number,
  store?: OpfsStore,
): Promise<{ ms: number; diskHits: number }> {
  const common = { cacheType: 'prefetch' as const, prefetchSize: prefetch, numWorkers: prefetch };
  const tiered = store
    ? createCachedDataset(source, { ...common, store, fingerprint: 'bench-epoch@1' })
    : undefined;
  const ds = tiered ?? createCachedDataset(source, common);
  ds.setPlan(order);
  const t0 = performance.now();
  for (const i of order) {
    const v = await ds.get(i);
    if (v.byteLength !== size)
      throw new Error(`sample ${i}: ${v.byteLength} bytes, expected ${size}`);
  }
  const ms = performance.now() - t0;
  let diskHits = 0;
  if (tiered) {
    await tiered.flush();
    diskHits = tiered.getCacheStats().diskHits;
  }
  await ds.close();
  return { ms, diskHits };
}

async function epochs(cfg: StoreBenchConfig): Promise<EpochRow[]> {
  const rows: EpochRow[] = [];
  const order = permutation(cfg.epochSamples, 7);
  // network: pick the best prefetch depth on a slice, then one full epoch that also fills the disk
  let best = cfg.netSweep[0]!;
  let bestRate = 0;
  for (const p of cfg.netSweep) {
    const slice = order.slice(0, cfg.netSweepSamples);
    const { ms } = await epoch(httpSource(cfg), slice, cfg.epochSize, p);
    log(`network sweep prefetch ${p}: ${ms.toFixed(0)} ms for ${slice.length}`);
    rows.push({
      source: 'network',
      prefetch: p,
      samples: slice.length,
      ms,
      diskHits: 0,
      best: false,
    });
    if (slice.length / ms > bestRate) {
      bestRate = slice.length / ms;
      best = p;
    }
  }
  const root = await navigator.storage.getDirectory();
  await root.removeEntry('bench-store-epoch', { recursive: true }).catch(() => {});
  const fill = new OpfsStore({ dir: 'bench-store-epoch', maxBytes: 4 * 2 ** 30 });
  const net = await epoch(httpSource(cfg), order, cfg.epochSize, best, fill);
  await fill.close();
  log(`network epoch (prefetch ${best}, disk tier filling behind): ${net.ms.toFixed(0)} ms`);
  rows.push({
    source: 'network',
    prefetch: best,
    samples: order.length,
    ms: net.ms,
    diskHits: 0,
    best: true,
  });

  // disk: a new store and dataset (a "second visit"), the network off
  const order2 = permutation(cfg.epochSamples, 8);
  const diskRuns: EpochRow[] = [];
  for (const p of cfg.diskSweep) {
    const store = new OpfsStore({ dir: 'bench-store-epoch', maxBytes: 4 * 2 ** 30 });
    const r = await epoch(offlineSource(cfg.epochSamples), order2, cfg.epochSize, p, store);
    await store.close();
    if (r.diskHits !== order2.length) throw new Error(`disk epoch: only ${r.diskHits} disk hits`);
    log(`disk epoch prefetch ${p}: ${r.ms.toFixed(0)} ms`);
    diskRuns.push({
      source: 'disk',
      prefetch: p,
      samples: order2.length,
      ms: r.ms,
      diskHits: r.diskHits,
      best: false,
    });
  }
  const fastest = diskRuns.reduce((a, b) => (b.ms < a.ms ? b : a));
  fastest.best = true;
  rows.push(...diskRuns);
  await root.removeEntry('bench-store-epoch', { recursive: true }).catch(() => {});
  return rows;
}

/** Entry point called by bench/store.ts. */
async function runStoreBench(
  cfg: StoreBenchConfig,
): Promise<{ throughput: ThroughputRow[]; epochs: EpochRow[] }> {
  const root = await navigator.storage.getDirectory();
  for (const d of ['bench-store-opfs', 'bench-store-epoch'])
    await root.removeEntry(d, { recursive: true }).catch(() => {});
  await deleteDB('bench-store-idb');
  const t = cfg.only === 'epoch' ? [] : await throughput(cfg);
  const e = cfg.only === 'throughput' ? [] : await epochs(cfg);
  return { throughput: t, epochs: e };
}

(window as unknown as { runStoreBench: typeof runStoreBench }).runStoreBench = runStoreBench;
