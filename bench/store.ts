// `pnpm bench store [--scale F] [--concurrency N] [--rounds R]
//   [--only throughput|epoch|breakdown|encryption|node] [--sizes 4,150] [--random-values]`
// (--only node: the Node rows alone, bench/store/nodeRows.ts (LmdbStore vs one file per key and
// classic-level) and bench/store/nodeEpoch.ts (the epoch row in Node); a full run ends with them)
// (--only encryption: the throughput of OpfsStore and IdbStore, plain and encrypted, and the
// epochs; what issue 40's figures need) (--sizes: which sample sizes, in KB, the breakdown and
//   throughput run; --random-values: throughput values of random bytes, incompressible as sealed
//   values are, instead of one byte repeated, which IndexedDB compresses to almost nothing)
//
// The persistent tier in Chromium (one page, one run):
// (0) breakdown: where one put's time goes, stage by stage (encode, checksum, the hop to the
//     worker by clone or transfer, write, flush, Web Lock, index update), each timed on its own,
//     and where a get's goes: a SyncAccessHandle read into a fresh buffer, the same reads into
//     one reused buffer (the disk alone) and a fresh buffer allocated and filled (memory alone);
// (1) put and get throughput of OpfsStore, IdbStore and idb-keyval for 4 KB samples (10,000)
//     and 150 KB samples (2,000), each with N operations in flight (default 8), and the
//     ceiling `raw-handle`: the same operations (keys, sizes, count, ops in flight, every value
//     delivered to the page and checked there) served by one raw OPFS SyncAccessHandle in a
//     worker with no index file, checksum or lock (puts of one turn packed into one transferred
//     buffer and written sequentially, flushed every 100 ms like OpfsStore's default group
//     commit; gets one message each, read into a fresh buffer that is transferred back); and,
//     for reference, `raw-disk-only`: the same handle timed inside the worker, nothing
//     delivered; `plain-idb`: IndexedDB with no library, one transaction per op and a string
//     key, i.e. idb-keyval's work (how far the same work lands from idb-keyval in this run),
//     and `plain-idb+format`: the same with IdbStore's record key and read checksum;
//     `OpfsStore+enc` / `IdbStore+enc`: the same stores with an AES-GCM `encryptionKey`
//     (rows `{"name":"encrypted-vs-plain","store":"opfs"|"idb","op","ratio"}` at 150 KB,
//     with the spread of the rounds' own ratios). Every round also reads the page main
//     thread's task time (Chrome's TaskDuration metric, over CDP) before and after: rows
//     `{"name":"page-thread","store","op","size","pageMsPerOp"}` say what a put or a get costs the
//     page's (training) thread, the bench's own loop included (the same for every store). R rounds (default 5) of puts, then
//     a warm-up read pass and R rounds of reads; round r runs the competitors rotated by r
//     (A B C D, B C D A, ...), every put round from an empty store after a 1.5 s pause, every
//     read round in its own shuffled order with every value checked. Figures are the median
//     round, printed with the spread (min-max) over rounds;
// (2) one epoch of 2,000 samples of 150 KB over HTTP from a local Node server that behaves
//     like a consumer link (20 ms added latency, 100 Mbit/s shared by all connections, token
//     bucket) versus one epoch from disk (OpfsStore, new store and dataset, network off).
//     Each epoch runs with its best prefetch depth: the network one is picked on a 150-sample
//     slice of the order, the disk one over full epochs. Then the disk epochs again from an
//     encrypted OpfsStore (the same records copied into it, sealed): `disk-encrypted` rows and
//     the target diskEpochEncryptedVsNetworkEpoch (>= 20).
// Prints tables, then one JSON line. --scale shrinks every count with the same shape.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { createServer, defaultClientConditions } from 'vite';
import { arg } from './_args.js';
import { chromiumLaunchOptions } from './_chromium.js';
import { median, round } from './_stats.js';
import type {
  BreakdownRow,
  EpochRow,
  StoreBenchConfig,
  StoreBenchResult,
  ThroughputRow,
} from './store/main.js';
import { nodeEpochRows } from './store/nodeEpoch.js';
import { nodeRows } from './store/nodeRows.js';
import { startThrottledServer } from './store/throttledServer.js';

const scale = Math.min(1, Math.max(0.01, Number(arg('scale') ?? 1) || 1));
const concurrency = Math.max(1, Number(arg('concurrency') ?? 8) || 8);
const rounds = Math.max(1, Number(arg('rounds') ?? 5) || 5);
const onlyArg = arg('only') ?? 'all';
if (!['all', 'throughput', 'epoch', 'breakdown', 'encryption', 'node'].includes(onlyArg)) {
  throw new RangeError(
    `--only must be throughput, epoch, breakdown, encryption or node, got ${onlyArg}`,
  );
}
const nodeOnly = onlyArg === 'node';
const only = (nodeOnly ? 'all' : onlyArg) as StoreBenchConfig['only'];
const randomValues = process.argv.includes('--random-values');
const sizesArg = (arg('sizes') ?? '4,150').split(',').map(Number);
for (const kb of sizesArg) {
  if (kb !== 4 && kb !== 150) throw new RangeError(`--sizes takes 4 and/or 150 (KB), got ${kb}`);
}
const n = (x: number) => Math.max(10, Math.round(x * scale));

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const KB = 1024;

const sizes = (
  [
    [n(10_000), 4 * KB],
    [n(2_000), 150 * KB],
  ] as [number, number][]
).filter(([, bytes]) => sizesArg.includes(bytes / KB));
const runNodeRows = async () => [
  ...(await nodeRows({ sizes, rounds, concurrency })),
  ...(await nodeEpochRows({
    samples: n(2_000),
    size: 150 * KB,
    sweepSamples: n(150),
    netSweep: [4, 8, 16],
    diskSweep: [2, 8, 32],
    rounds,
  })),
];

async function main(): Promise<void> {
  if (nodeOnly) {
    console.log(JSON.stringify({ bench: 'store', rows: await runNodeRows() }));
    return;
  }
  const cfgBase = {
    sizes,
    concurrency,
    epochSamples: n(2_000),
    epochSize: 150 * KB,
    netSweep: [4, 8, 16],
    netSweepSamples: n(150),
    diskSweep: [2, 8, 32],
    rounds,
    only,
    randomValues,
  };
  const net = await startThrottledServer({ latencyMs: 20, mbit: 100, size: cfgBase.epochSize });
  const server = await createServer({
    configFile: false,
    root: resolve(here, 'store'),
    logLevel: 'warn',
    resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
    worker: { format: 'es' },
    optimizeDeps: { entries: ['index.html'], include: ['idb', 'idb-keyval'] },
    cacheDir: resolve(repoRoot, 'node_modules/.vite-bench-store'),
    server: { host: '127.0.0.1', port: 0, fs: { allow: [repoRoot] }, hmr: false, watch: null },
  });
  await server.listen();
  const address = server.httpServer?.address();
  if (address === null || address === undefined || typeof address === 'string') {
    throw new Error('the Vite server has no TCP address');
  }
  // A persistent profile on disk, as a user's browser has: a fresh context of
  // chromium.launch() is incognito, where OPFS and IndexedDB live in memory
  // and every sync-handle call is a round trip to the browser process.
  const profile = mkdtempSync(join(tmpdir(), 'medfusion-bench-store-'));
  const browser = await chromium.launchPersistentContext(profile, chromiumLaunchOptions());
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    // The page main thread's task time so far, for the page-thread rows.
    const cdp = await browser.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.exposeFunction('benchPageTaskMs', async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      const task = metrics.find((m) => m.name === 'TaskDuration');
      return task ? task.value * 1000 : Number.NaN;
    });
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.text().startsWith('[bench]'))
        console.error(`  page: ${msg.text()}`);
    });
    page.on('pageerror', (err) => console.error(`  page error: ${err.message}`));
    await page.goto(`http://127.0.0.1:${address.port}/`);
    await page.waitForFunction(() => 'runStoreBench' in window, undefined, { timeout: 120_000 });
    const cfg: StoreBenchConfig = { ...cfgBase, netUrl: net.url };
    console.error(
      `store bench: scale ${scale}, ${concurrency} ops in flight; epoch ${cfg.epochSamples} x 150 KB, ` +
        'network 20 ms + 100 Mbit/s shared',
    );
    const result = await page.evaluate(
      (c) =>
        (
          window as unknown as {
            runStoreBench(c: StoreBenchConfig): Promise<StoreBenchResult>;
          }
        ).runStoreBench(c),
      cfg,
    );
    const extra = only === 'all' ? await runNodeRows() : [];
    report(result.breakdown, result.throughput, result.epochs, extra);
  } finally {
    await browser.close();
    await server.close();
    await net.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const sizeLabel = (b: number) => `${Math.round(b / KB)}KB`;

function report(
  bd: BreakdownRow[],
  tp: ThroughputRow[],
  ep: EpochRow[],
  nodeRowsOfRun: Record<string, unknown>[],
): void {
  const rows: Record<string, unknown>[] = [...nodeRowsOfRun];
  if (bd.length > 0) {
    console.log(
      '\nWhere a put goes (ms per record, each stage timed on its own; batch = ops in flight)',
    );
    console.log(
      'size   batch  stage                                                thread   msPerRecord',
    );
    for (const r of bd) {
      console.log(
        `${sizeLabel(r.bytes).padStart(5)} ${String(r.batch).padStart(6)}  ${r.stage.padEnd(52)} ${r.thread.padEnd(7)} ${r.msPerRecord.toFixed(4).padStart(12)}`,
      );
      rows.push({
        section: 'breakdown',
        size: sizeLabel(r.bytes),
        batch: r.batch,
        stage: r.stage,
        thread: r.thread,
        msPerRecord: round(r.msPerRecord, 4),
      });
    }
  }
  // MB/s per round; the median round and the spread (min-max) over rounds
  const mbps = (r: ThroughputRow) => r.rounds.map((ms) => (r.count * r.bytes) / 1e6 / (ms / 1000));
  const find = (store: string, op: string, bytes: number) =>
    tp.find((b) => b.store === store && b.op === op && b.bytes === bytes);
  if (tp.length > 0) {
    console.log(
      `\nThroughput, median of ${tp[0]!.rounds.length} rounds (spread = min-max over rounds); ` +
        'ratio = vs idb-keyval, ofCeiling = share of the raw SyncAccessHandle rate',
    );
    console.log(
      'store            op   size   count   opsPerSec    MB/s  spread MB/s     ratio  ofCeiling',
    );
  }
  const med = new Map<ThroughputRow, number>();
  for (const r of tp) med.set(r, median(mbps(r)));
  for (const r of tp) {
    const m = med.get(r)!;
    const all = mbps(r);
    const base = find('idb-keyval', r.op, r.bytes);
    const ceil = find('raw-handle', r.op, r.bytes);
    const ratio = base ? m / med.get(base)! : Number.NaN;
    const ofCeiling = ceil ? m / med.get(ceil)! : Number.NaN;
    const opsPerSec = (m * 1e6) / r.bytes;
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    console.log(
      `${r.store.padEnd(16)} ${r.op.padEnd(4)} ${sizeLabel(r.bytes).padStart(5)} ${String(r.count).padStart(7)} ` +
        `${opsPerSec.toFixed(0).padStart(11)} ${m.toFixed(1).padStart(7)} ${`${lo.toFixed(0)}-${hi.toFixed(0)}`.padStart(12)} ` +
        `${ratio.toFixed(2).padStart(9)} ${ofCeiling.toFixed(2).padStart(10)}`,
    );
    rows.push({
      section: 'throughput',
      store: r.store,
      op: r.op,
      size: sizeLabel(r.bytes),
      count: r.count,
      rounds: r.rounds.length,
      opsPerSec: round(opsPerSec, 1),
      mbPerSec: round(m, 1),
      mbPerSecMin: round(lo, 1),
      mbPerSecMax: round(hi, 1),
      ratio: round(ratio, 2),
      ofCeiling: round(ofCeiling, 2),
    });
  }
  if (ep.length > 0) {
    console.log('\nEpoch of 150 KB samples (best = the prefetch depth used for the comparison)');
    console.log('source          prefetch  samples    wallMs  samplesPerSec  best');
  }
  for (const r of ep) {
    const sps = (r.samples / r.ms) * 1000;
    console.log(
      `${r.source.padEnd(15)} ${String(r.prefetch).padStart(8)} ${String(r.samples).padStart(8)} ` +
        `${r.ms.toFixed(0).padStart(9)} ${sps.toFixed(1).padStart(14)}  ${r.best ? 'yes' : ''}`,
    );
    rows.push({
      section: 'epoch',
      source: r.source,
      prefetch: r.prefetch,
      samples: r.samples,
      wallMs: round(r.ms, 1),
      samplesPerSec: round(sps, 1),
      best: r.best,
    });
  }
  const ratioOf = (store: string, other: string, op: string) => {
    const a = find(store, op, 150 * KB);
    const b = find(other, op, 150 * KB);
    return a && b ? med.get(a)! / med.get(b)! : Number.NaN;
  };
  const netBest = ep.find((r) => r.source === 'network' && r.best);
  const epochVsNet = (source: EpochRow['source']) => {
    const diskBest = ep.find((r) => r.source === source && r.best);
    return netBest && diskBest
      ? netBest.ms / netBest.samples / (diskBest.ms / diskBest.samples)
      : Number.NaN;
  };
  const epochRatio = epochVsNet('disk');
  const targets: [string, number, number, string][] = [
    [
      'opfsReadVsIdbKeyval150KB',
      ratioOf('OpfsStore', 'idb-keyval', 'get'),
      2,
      'OpfsStore reads vs idb-keyval at 150 KB',
    ],
    [
      'opfsWriteVsIdbKeyval150KB',
      ratioOf('OpfsStore', 'idb-keyval', 'put'),
      1,
      'OpfsStore writes vs idb-keyval at 150 KB',
    ],
    [
      'opfsReadOfCeiling',
      ratioOf('OpfsStore', 'raw-handle', 'get'),
      0.7,
      'OpfsStore reads, share of the raw-handle read ceiling at 150 KB',
    ],
    [
      'opfsWriteOfCeiling',
      ratioOf('OpfsStore', 'raw-handle', 'put'),
      0.7,
      'OpfsStore writes, share of the raw-handle write ceiling at 150 KB',
    ],
    [
      'idbStoreReadVsIdbKeyval150KB',
      ratioOf('IdbStore', 'idb-keyval', 'get'),
      1,
      'IdbStore reads vs idb-keyval at 150 KB',
    ],
    [
      'idbStoreWriteVsIdbKeyval150KB',
      ratioOf('IdbStore', 'idb-keyval', 'put'),
      1,
      'IdbStore writes vs idb-keyval at 150 KB',
    ],
    ['diskEpochVsNetworkEpoch', epochRatio, 20, 'Disk epoch vs network epoch'],
    [
      'diskEpochEncryptedVsNetworkEpoch',
      epochVsNet('disk-encrypted'),
      20,
      'Disk epoch, encrypted OpfsStore, vs network epoch',
    ],
  ];
  // Encryption at rest: each encrypted store against the same store plain, 150 KB values, same
  // run, alternating rounds; the median ratio and its spread over the rounds' own ratios.
  const encTargets = { get: 0.8, put: 0.7 } as const;
  const encRows: string[] = [];
  for (const [store, name] of [
    ['opfs', 'OpfsStore'],
    ['idb', 'IdbStore'],
  ] as const) {
    for (const op of ['get', 'put'] as const) {
      const enc = find(`${name}+enc`, op, 150 * KB);
      const plain = find(name, op, 150 * KB);
      if (!enc || !plain) continue;
      const ratio = med.get(enc)! / med.get(plain)!;
      // per round: a round's plain ms over its encrypted ms (same count and size)
      const perRound = enc.rounds.map((ms, r) => plain.rounds[r]! / ms);
      const lo = Math.min(...perRound);
      const hi = Math.max(...perRound);
      encRows.push(
        `${name} ${op === 'get' ? 'reads' : 'writes'} encrypted vs plain at 150 KB: ${ratio.toFixed(2)}x ` +
          `(rounds ${lo.toFixed(2)}-${hi.toFixed(2)}; target >= ${encTargets[op]})`,
      );
      rows.push({
        name: 'encrypted-vs-plain',
        store,
        op,
        ratio: round(ratio, 2),
        ratioMin: round(lo, 2),
        ratioMax: round(hi, 2),
        target: encTargets[op],
      });
    }
  }
  // What a put or a get costs the page's own thread (median round), plain and encrypted.
  const pageRows = tp.filter((r) => r.pageMs.some((ms) => !Number.isNaN(ms)));
  if (pageRows.length > 0) {
    console.log(
      '\nPage main-thread time per operation (Chrome TaskDuration, median round; the bench loop included)',
    );
    console.log('store            op   size   pageMsPerOp  spread');
  }
  for (const r of pageRows) {
    const per = r.pageMs.map((ms) => ms / r.count);
    const m = median(per);
    console.log(
      `${r.store.padEnd(16)} ${r.op.padEnd(4)} ${sizeLabel(r.bytes).padStart(5)} ${m.toFixed(4).padStart(13)}  ` +
        `${Math.min(...per).toFixed(4)}-${Math.max(...per).toFixed(4)}`,
    );
    rows.push({
      name: 'page-thread',
      store: r.store,
      op: r.op,
      size: sizeLabel(r.bytes),
      pageMsPerOp: round(m, 4),
      pageMsPerOpMin: round(Math.min(...per), 4),
      pageMsPerOpMax: round(Math.max(...per), 4),
    });
  }
  console.log('');
  for (const line of encRows) console.log(line);
  for (const [metric, ratio, target, label] of targets) {
    if (Number.isNaN(ratio)) continue;
    console.log(`${label}: ${ratio.toFixed(2)}x (target >= ${target})`);
    rows.push({ section: 'target', metric, ratio: round(ratio, 2), target });
  }
  console.log(JSON.stringify({ bench: 'store', rows }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
