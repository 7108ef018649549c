// `pnpm bench store [--scale F] [--concurrency N] [--rounds R] [--only throughput|epoch]`
//
// The persistent tier in Chromium (one page, one run):
// (1) put and get throughput of OpfsStore, IdbStore and idb-keyval for 4 KB samples
//     (10,000) and 150 KB samples (2,000), each with N operations in flight (default 8);
//     puts one store after the other with a 1.5 s pause so one's background work does not
//     slow the next; reads after a warm-up pass per store, in R rounds (default 5) that
//     alternate which store goes first, each round a new shuffled order, every read
//     checked, the median round reported;
// (2) one epoch of 2,000 samples of 150 KB over HTTP from a local Node server that behaves
//     like a consumer link (20 ms added latency, 100 Mbit/s shared by all connections, token
//     bucket) versus one epoch from disk (OpfsStore, new store and dataset, network off).
//     Each epoch runs with its best prefetch depth: the network one is picked on a 150-sample
//     slice of the order, the disk one over full epochs.
// Prints a table, then one JSON line. --scale shrinks every count with the same shape.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { createServer, defaultClientConditions } from 'vite';
import { chromiumLaunchOptions } from './_chromium.js';
import type { EpochRow, StoreBenchConfig, ThroughputRow } from './store/main.js';
import { startThrottledServer } from './store/throttledServer.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const scale = Math.min(1, Math.max(0.01, Number(arg('scale') ?? 1) || 1));
const concurrency = Math.max(1, Number(arg('concurrency') ?? 8) || 8);
const readRounds = Math.max(1, Number(arg('rounds') ?? 5) || 5);
const onlyArg = arg('only') ?? 'all';
if (onlyArg !== 'all' && onlyArg !== 'throughput' && onlyArg !== 'epoch') {
  throw new RangeError(`--only must be throughput or epoch, got ${onlyArg}`);
}
const only: 'all' | 'throughput' | 'epoch' = onlyArg;
const n = (x: number) => Math.max(10, Math.round(x * scale));

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const KB = 1024;

async function main(): Promise<void> {
  const cfgBase = {
    sizes: [
      [n(10_000), 4 * KB],
      [n(2_000), 150 * KB],
    ] as [number, number][],
    concurrency,
    epochSamples: n(2_000),
    epochSize: 150 * KB,
    netSweep: [4, 8, 16],
    netSweepSamples: n(150),
    diskSweep: [2, 8, 32],
    readRounds,
    only,
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
            runStoreBench(
              c: StoreBenchConfig,
            ): Promise<{ throughput: ThroughputRow[]; epochs: EpochRow[] }>;
          }
        ).runStoreBench(c),
      cfg,
    );
    report(result.throughput, result.epochs);
  } finally {
    await browser.close();
    await server.close();
    await net.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
const sizeLabel = (b: number) => `${Math.round(b / KB)}KB`;

function report(tp: ThroughputRow[], ep: EpochRow[]): void {
  const rows: Record<string, unknown>[] = [];
  console.log('\nThroughput (ops/s, MB/s; ratio = vs idb-keyval, same op and size)');
  console.log('store        op   size   count   opsPerSec    MB/s   ratio');
  for (const r of tp) {
    const base = tp.find((b) => b.store === 'idb-keyval' && b.op === r.op && b.bytes === r.bytes);
    const opsPerSec = (r.count / r.ms) * 1000;
    const ratio = base ? base.ms / r.ms : 1;
    const mbPerSec = (r.count * r.bytes) / 1e6 / (r.ms / 1000);
    console.log(
      `${r.store.padEnd(12)} ${r.op.padEnd(4)} ${sizeLabel(r.bytes).padStart(5)} ${String(r.count).padStart(7)} ` +
        `${opsPerSec.toFixed(0).padStart(11)} ${mbPerSec.toFixed(1).padStart(7)} ${ratio.toFixed(2).padStart(7)}`,
    );
    rows.push({
      section: 'throughput',
      store: r.store,
      op: r.op,
      size: sizeLabel(r.bytes),
      count: r.count,
      opsPerSec: round(opsPerSec, 1),
      mbPerSec: round(mbPerSec, 1),
      ratio: round(ratio, 2),
    });
  }
  console.log('\nEpoch of 150 KB samples (best = the prefetch depth used for the comparison)');
  console.log('source    prefetch  samples    wallMs  samplesPerSec  best');
  for (const r of ep) {
    const sps = (r.samples / r.ms) * 1000;
    console.log(
      `${r.source.padEnd(9)} ${String(r.prefetch).padStart(8)} ${String(r.samples).padStart(8)} ` +
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
  const netBest = ep.find((r) => r.source === 'network' && r.best);
  const diskBest = ep.find((r) => r.source === 'disk' && r.best);
  const opfsGet = tp.find((r) => r.store === 'OpfsStore' && r.op === 'get' && r.bytes === 150 * KB);
  const kvGet = tp.find((r) => r.store === 'idb-keyval' && r.op === 'get' && r.bytes === 150 * KB);
  const readRatio = opfsGet && kvGet ? kvGet.ms / opfsGet.ms : Number.NaN;
  const epochRatio =
    netBest && diskBest
      ? netBest.ms / netBest.samples / (diskBest.ms / diskBest.samples)
      : Number.NaN;
  console.log(
    `\nOpfsStore reads vs idb-keyval at 150 KB: ${readRatio.toFixed(2)}x (target >= 2)` +
      `\nDisk epoch vs network epoch: ${epochRatio.toFixed(1)}x faster (target >= 10)`,
  );
  rows.push({
    section: 'target',
    metric: 'opfsReadVsIdbKeyval150KB',
    ratio: round(readRatio, 2),
    target: 2,
  });
  rows.push({
    section: 'target',
    metric: 'diskEpochVsNetworkEpoch',
    ratio: round(epochRatio, 2),
    target: 10,
  });
  console.log(JSON.stringify({ bench: 'store', rows }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
