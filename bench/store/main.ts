// Runs in Chromium (served by the Vite server of bench/store.ts): a breakdown of
// where a put's time goes, store throughput (OpfsStore, IdbStore, idb-keyval and
// the raw SyncAccessHandle ceiling in the same page, alternating in rounds) and
// one epoch from disk versus one over the throttled HTTP server.
import {
  createCachedDataset,
  type Dataset,
  IdbStore,
  OpfsStore,
  type PersistentStore,
} from '@medfusion/web';
import { deleteDB } from 'idb';
import { createStore, clear as kvClear, get as kvGet, set as kvSet } from 'idb-keyval';
import { type Competitor, kvCompetitor } from './competitor.js';
import { epoch, httpSource, offlineSource, permutation } from './epochRun.js';
import { plainIdbCompetitor } from './plainIdb.js';
import { ask, rawDiskCompetitor, rawServeCompetitor, rawWorker } from './rawCompetitors.js';

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
  /** Timed rounds per store, op and size (the median is reported, with the spread). */
  rounds: number;
  /**
   * Which parts to run; 'encryption': the throughput of the four stores of the
   * `encrypted-vs-plain` rows only (OpfsStore, IdbStore, each plain and with a key), then the epochs.
   */
  only: 'all' | 'throughput' | 'epoch' | 'breakdown' | 'encryption';
  /**
   * Throughput values of random bytes (incompressible, as sealed values are) instead of one
   * byte repeated, which IndexedDB's value compression shrinks to almost nothing.
   */
  randomValues: boolean;
}

/** One store, op and size over every round. */
export interface ThroughputRow {
  store: string;
  op: 'put' | 'get';
  count: number;
  bytes: number;
  /** Elapsed ms of each round, in round order. */
  rounds: number[];
  /**
   * Page main-thread task time of each round (ms, Chrome's `TaskDuration` metric, read
   * before and after the round): what the store costs the page's training thread, with the
   * bench's own loop (the same for every store). NaN where the metric is not offered.
   */
  pageMs: number[];
}

/** One epoch measurement. */
export interface EpochRow {
  /** 'disk-encrypted': from an OpfsStore with an AES-GCM `encryptionKey`. */
  source: 'network' | 'disk' | 'disk-encrypted';
  prefetch: number;
  samples: number;
  ms: number;
  /** Samples served from disk (disk rows). */
  diskHits: number;
  /** True for the full epoch with the best setting (others are the sweep). */
  best: boolean;
}

/** Where the time of one put goes: ms per record for each stage. */
export interface BreakdownRow {
  bytes: number;
  /** Records per batch (the ops in flight). */
  batch: number;
  stage: string;
  /** Which thread pays it. */
  thread: 'page' | 'worker' | 'both';
  msPerRecord: number;
}

const log = (m: string) => console.log(`[bench] ${m}`);
const idle = () => new Promise((r) => setTimeout(r, 1500));
const pause = () => new Promise((r) => setTimeout(r, 200));

/** An OpfsStore or IdbStore competitor (with `key`: encryption at rest on). */
function storeCompetitor(kind: 'opfs' | 'idb', key?: CryptoKey): Competitor {
  const suffix = key ? '-enc' : '';
  const enc = key ? { encryptionKey: key } : {};
  if (kind === 'opfs') {
    const dir = `bench-store-opfs${suffix}`;
    const opfs = new OpfsStore({ dir, maxBytes: 4 * 2 ** 30, ...enc });
    return kvCompetitor(
      `OpfsStore${key ? '+enc' : ''}`,
      (k, v) => opfs.put(k, v),
      (k) => opfs.get(k),
      () => opfs.clear(),
      async () => {
        await opfs.clear();
        await opfs.close();
        const root = await navigator.storage.getDirectory();
        await root.removeEntry(dir, { recursive: true }).catch(() => {});
      },
    );
  }
  const name = `bench-store-idb${suffix}`;
  const idb = new IdbStore({ name, maxBytes: 4 * 2 ** 30, ...enc });
  return kvCompetitor(
    `IdbStore${key ? '+enc' : ''}`,
    (k, v) => idb.put(k, v),
    (k) => idb.get(k),
    () => idb.clear(),
    async () => {
      await idb.close();
      await deleteDB(name);
    },
  );
}

function competitors(key: CryptoKey, encryptionOnly: boolean): Competitor[] {
  if (encryptionOnly) {
    return [
      storeCompetitor('opfs'),
      storeCompetitor('idb'),
      storeCompetitor('opfs', key),
      storeCompetitor('idb', key),
    ];
  }
  const kv = createStore('bench-store-keyval', 'kv');
  // idb-keyval keeps its connection open (deleteDB would wait forever): clear only.
  return [
    storeCompetitor('opfs'),
    storeCompetitor('idb'),
    // encryption at rest (AES-GCM) against the same stores plain: `encrypted-vs-plain` rows
    storeCompetitor('opfs', key),
    storeCompetitor('idb', key),
    kvCompetitor(
      'idb-keyval',
      (k, v) => kvSet(k, v, kv),
      (k) => kvGet<Uint8Array>(k, kv),
      () => kvClear(kv),
      () => kvClear(kv),
    ),
    rawServeCompetitor(),
    rawDiskCompetitor(),
    plainIdbCompetitor(false),
    plainIdbCompetitor(true),
  ];
}

/**
 * The page main thread's task time so far (ms), from Chrome's `Performance.getMetrics`
 * (`TaskDuration`), which bench/store.ts offers as `window.benchPageTaskMs`; NaN without it.
 */
async function pageTaskMs(): Promise<number> {
  const f = (window as unknown as { benchPageTaskMs?: () => Promise<number> }).benchPageTaskMs;
  return f ? f() : Number.NaN;
}

/**
 * Put rounds, then read rounds. Round r runs the competitors in the order
 * rotated by r (A B C D, B C D A, ...); every put round starts from an empty
 * store after a pause (so one's background work does not slow the next), every
 * read round reads every key in its own shuffled order, checked.
 */
async function throughput(cfg: StoreBenchConfig): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const [count, bytes] of cfg.sizes) {
    const values = Array.from({ length: 16 }, (_, v) => {
      const a = new Uint8Array(bytes).fill(v + 1);
      if (cfg.randomValues) {
        for (let at = 0; at < bytes; at += 65536)
          crypto.getRandomValues(a.subarray(at, Math.min(bytes, at + 65536)));
        a[0] = v + 1; // the bytes every read checks
        a[bytes - 1] = v + 1;
      }
      return a;
    });
    const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
      'encrypt',
      'decrypt',
    ]);
    const all = competitors(key, cfg.only === 'encryption');
    const puts = new Map<string, number[]>(all.map((s) => [s.name, []]));
    const gets = new Map<string, number[]>(all.map((s) => [s.name, []]));
    const putPage = new Map<string, number[]>(all.map((s) => [s.name, []]));
    const getPage = new Map<string, number[]>(all.map((s) => [s.name, []]));
    for (let r = 0; r < cfg.rounds; r++) {
      for (let j = 0; j < all.length; j++) {
        const s = all[(r + j) % all.length]!;
        await s.reset();
        await idle();
        const p0 = await pageTaskMs();
        puts.get(s.name)![r] = await s.putAll(count, bytes, cfg.concurrency, values);
        putPage.get(s.name)![r] = (await pageTaskMs()) - p0;
      }
      log(`${bytes} B x ${count}: put round ${r + 1}/${cfg.rounds} done`);
    }
    await idle();
    for (const s of all) await s.readAll(permutation(count, 98), bytes, cfg.concurrency);
    for (let r = 0; r < cfg.rounds; r++) {
      const order = permutation(count, 99 + r);
      for (let j = 0; j < all.length; j++) {
        const s = all[(r + j) % all.length]!;
        await pause();
        const p0 = await pageTaskMs();
        gets.get(s.name)![r] = await s.readAll(order, bytes, cfg.concurrency);
        getPage.get(s.name)![r] = (await pageTaskMs()) - p0;
      }
    }
    for (const s of all) {
      const put = { store: s.name, op: 'put', count, bytes } as const;
      rows.push({ ...put, rounds: puts.get(s.name)!, pageMs: putPage.get(s.name)! });
      const get = { store: s.name, op: 'get', count, bytes } as const;
      rows.push({ ...get, rounds: gets.get(s.name)!, pageMs: getPage.get(s.name)! });
    }
    for (const s of all) await s.dispose();
  }
  return rows;
}

/**
 * Where a put's time goes, stage by stage, per record at `concurrency`
 * records per batch: the page's part (validation and packing into the batch
 * buffer), the hop to the worker (structured clone of every value, as before,
 * against one transferred batch buffer), then the worker's (checksums, the
 * sequential write, the flush, the Web Lock). Each stage is timed on its own
 * with performance.now(), here and in the raw-handle worker, never in the
 * shipped store.
 */
async function breakdown(cfg: StoreBenchConfig): Promise<BreakdownRow[]> {
  const rows: BreakdownRow[] = [];
  const worker = rawWorker();
  const echo = new Worker(new URL('./echo.worker.ts', import.meta.url), { type: 'module' });
  const hop = (msg: unknown, transfer: Transferable[]) =>
    new Promise<unknown>((resolve) => {
      echo.onmessage = (ev) => resolve(ev.data);
      echo.postMessage(msg, transfer);
    });
  try {
    for (const [count, bytes] of cfg.sizes) {
      const batch = cfg.concurrency;
      const n = Math.max(batch, Math.min(count, Math.floor((64 * 2 ** 20) / bytes)));
      const values = Array.from({ length: batch }, (_, v) => new Uint8Array(bytes).fill(v + 1));
      const keys = values.map((_, i) => `bench@1/${i}`);
      const add = (stage: string, thread: BreakdownRow['thread'], ms: number) =>
        rows.push({ bytes, batch, stage, thread, msPerRecord: ms });
      // encode: a record header, the key and one copy of each value into one batch buffer,
      // new per batch (as the worker did before the group commit) or reused (as the page does now)
      const enc = new TextEncoder();
      const recordBytes = 24 + 16 + bytes;
      const encode = (packed: Uint8Array) => {
        const dv = new DataView(packed.buffer);
        for (let j = 0; j < batch; j++) {
          const at = j * recordBytes;
          dv.setUint32(at, 0x3152464d, true);
          dv.setUint32(at + 8, bytes, true);
          enc.encodeInto(keys[j]!, packed.subarray(at + 24, at + 40));
          packed.set(values[j]!, at + 40);
        }
      };
      let t0 = performance.now();
      for (let i = 0; i < n; i += batch) encode(new Uint8Array(batch * recordBytes));
      add('encode (copy into a new batch buffer)', 'page', (performance.now() - t0) / n);
      let packed = new Uint8Array(batch * recordBytes);
      t0 = performance.now();
      for (let i = 0; i < n; i += batch) encode(packed);
      add('encode (copy into a reused batch buffer)', 'page', (performance.now() - t0) / n);
      // hop: structured clone of every value, then one transferred buffer
      t0 = performance.now();
      for (let i = 0; i < n; i += batch) await hop(values, []);
      add('postMessage (clone each value)', 'both', (performance.now() - t0) / n);
      t0 = performance.now();
      for (let i = 0; i < n; i += batch) {
        packed = (await hop(packed, [packed.buffer])) as Uint8Array<ArrayBuffer>;
      }
      add('postMessage (transfer batch there and back)', 'both', (performance.now() - t0) / n);
      const r = await ask(worker, { op: 'stages', count: n, bytes, batch });
      if ('stages' in r) {
        add('checksum (xxHash32, JavaScript; webAssembly: false)', 'worker', r.stages.checksum!);
        add('checksum (xxHash64, hash-wasm; the default)', 'worker', r.stages.checksum64!);
        add('write (sequential)', 'worker', r.stages.write!);
        add('flush (one per batch; now one per group commit)', 'worker', r.stages.flush!);
        add('Web Lock (one per batch; now one per group commit)', 'worker', r.stages.lock!);
      }
      // a get: what the disk costs against what a fresh buffer for the caller costs
      const g = await ask(worker, { op: 'readStages', order: permutation(n, 7), bytes });
      if ('stages' in g) {
        add('get: read into a fresh buffer (SyncAccessHandle)', 'worker', g.stages.fresh!);
        add('get: read into one reused buffer (the disk alone)', 'worker', g.stages.reused!);
        add('get: fresh buffer allocated and filled, no read', 'worker', g.stages.alloc!);
      }
      // index update: one Map entry per record
      const index = new Map<string, { segment: number; offset: number; len: number }>();
      t0 = performance.now();
      for (let i = 0; i < n; i++) index.set(`k${i}`, { segment: 1, offset: i * bytes, len: bytes });
      add('index update', 'worker', (performance.now() - t0) / n);
    }
  } finally {
    await ask(worker, { op: 'close' }).catch(() => {});
    worker.terminate();
    echo.terminate();
  }
  return rows;
}

/** An epoch's disk tier on `store` (the caller's, left open). */
const onStore =
  (store: PersistentStore) =>
  (source: Dataset<Uint8Array>, common: Parameters<typeof createCachedDataset<Uint8Array>>[1]) =>
    createCachedDataset(source, { ...common, store });

async function epochs(cfg: StoreBenchConfig): Promise<EpochRow[]> {
  const rows: EpochRow[] = [];
  const order = permutation(cfg.epochSamples, 7);
  // network: pick the best prefetch depth on a slice, then one full epoch that also fills the disk
  let best = cfg.netSweep[0]!;
  let bestRate = 0;
  for (const p of cfg.netSweep) {
    const slice = order.slice(0, cfg.netSweepSamples);
    const { ms } = await epoch(httpSource(cfg.netUrl, cfg.epochSamples), slice, cfg.epochSize, p);
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
  const net = await epoch(
    httpSource(cfg.netUrl, cfg.epochSamples),
    order,
    cfg.epochSize,
    best,
    onStore(fill),
  );
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
    const r = await epoch(
      offlineSource(cfg.epochSamples),
      order2,
      cfg.epochSize,
      p,
      onStore(store),
    );
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
  rows.push(...(await encryptedDiskEpochs(cfg, order2)));
  await root.removeEntry('bench-store-epoch', { recursive: true }).catch(() => {});
  return rows;
}

/**
 * The disk epochs again from an OpfsStore with an AES-GCM `encryptionKey`: the
 * records the network epoch left in 'bench-store-epoch' are copied (read, put)
 * into 'bench-store-epoch-enc', sealed there, then each prefetch depth of the
 * disk sweep reads one epoch from a new encrypted store and dataset, network off.
 */
async function encryptedDiskEpochs(cfg: StoreBenchConfig, order: number[]): Promise<EpochRow[]> {
  const root = await navigator.storage.getDirectory();
  await root.removeEntry('bench-store-epoch-enc', { recursive: true }).catch(() => {});
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ]);
  const opts = { dir: 'bench-store-epoch-enc', maxBytes: 4 * 2 ** 30, encryptionKey: key };
  const plain = new OpfsStore({ dir: 'bench-store-epoch', maxBytes: 4 * 2 ** 30 });
  const sealed = new OpfsStore(opts);
  for (const k of await plain.keys()) {
    const v = await plain.get(k);
    if (v) await sealed.put(k, v);
  }
  await plain.close();
  await sealed.close();
  const runs: EpochRow[] = [];
  for (const p of cfg.diskSweep) {
    const store = new OpfsStore(opts);
    const r = await epoch(offlineSource(cfg.epochSamples), order, cfg.epochSize, p, onStore(store));
    const u = await store.usage();
    await store.close();
    if (r.diskHits !== order.length || u.undecryptable !== 0)
      throw new Error(
        `encrypted disk epoch: ${r.diskHits} disk hits, ${u.undecryptable} undecryptable`,
      );
    log(`encrypted disk epoch prefetch ${p}: ${r.ms.toFixed(0)} ms`);
    runs.push({
      source: 'disk-encrypted',
      prefetch: p,
      samples: order.length,
      ms: r.ms,
      diskHits: r.diskHits,
      best: false,
    });
  }
  runs.reduce((a, b) => (b.ms < a.ms ? b : a)).best = true;
  await root.removeEntry('bench-store-epoch-enc', { recursive: true }).catch(() => {});
  return runs;
}

/** What {@link runStoreBench} answers. */
export interface StoreBenchResult {
  breakdown: BreakdownRow[];
  throughput: ThroughputRow[];
  epochs: EpochRow[];
}

/** Entry point called by bench/store.ts. */
async function runStoreBench(cfg: StoreBenchConfig): Promise<StoreBenchResult> {
  const root = await navigator.storage.getDirectory();
  for (const d of [
    'bench-store-opfs',
    'bench-store-opfs-enc',
    'bench-store-epoch',
    'bench-store-epoch-enc',
  ])
    await root.removeEntry(d, { recursive: true }).catch(() => {});
  await deleteDB('bench-store-idb');
  await deleteDB('bench-store-idb-enc');
  const b = cfg.only === 'all' || cfg.only === 'breakdown' ? await breakdown(cfg) : [];
  const t =
    cfg.only === 'all' || cfg.only === 'throughput' || cfg.only === 'encryption'
      ? await throughput(cfg)
      : [];
  const e =
    cfg.only === 'all' || cfg.only === 'epoch' || cfg.only === 'encryption'
      ? await epochs(cfg)
      : [];
  return { breakdown: b, throughput: t, epochs: e };
}

(window as unknown as { runStoreBench: typeof runStoreBench }).runStoreBench = runStoreBench;
