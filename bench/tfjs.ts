// `pnpm bench tfjs [--samples N | --scale F] [--latency MS] [--backend cpu|webgl] [--workers N]
//                  [--concurrency N] [--prefetch N] [--rows a,b,c] [--reps N] [--transport h1,h2]`
//
// Feeding a TF.js model in Chromium: tf.data (generator → mapAsync decode → prefetch(10) →
// batch(32)) against our pipeline (DataLoader → PrefetchDataset → toTfDataset) with loads run
// in-thread or by the Web Worker executor (2 workers). Source: 2,000 generated 64×64 PNGs served
// over HTTP by a Vite dev server on 127.0.0.1 with 10 ms added latency and no caching; every row
// fetches, decodes (createImageBitmap + OffscreenCanvas) and normalises to Float32 the same way.
// Per row, in the same page: (a) throughput, one epoch drained as fitDataset takes it (tensors
// made and disposed, no training); (b) one epoch of fitDataset on a small conv net, with the
// share of the epoch spent waiting in the data iterator's next(). Rows run one after the other
// in one page of one Chromium; each measurement builds a fresh pipeline (no cache carries over).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'fast-png';
import { chromium } from 'playwright';
import { createServer, defaultClientConditions, type Plugin } from 'vite';
import type { BenchConfig, RowResult } from './tfjs/main.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
function intArg(name: string, fallback: number): number {
  const n = Number(arg(name));
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const SCALE = Number(arg('scale') ?? 1);
/** --samples N, or 2,000 × --scale (same shape, shorter run). */
const SAMPLES = intArg(
  'samples',
  Math.max(64, Math.round(2000 * (Number.isFinite(SCALE) && SCALE > 0 ? SCALE : 1))),
);
const LATENCY_MS = Number(arg('latency') ?? 10);
const SIZE = 64;
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');

/** Seeded PNGs: label = index % 2, horizontal (0) or vertical (1) stripes under noise. */
function generatePngs(n: number): Uint8Array[] {
  let a = 0x5eed;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: Uint8Array[] = [];
  const data = new Uint8Array(SIZE * SIZE);
  for (let i = 0; i < n; i++) {
    const vertical = i % 2 === 1;
    const period = 4 + Math.floor(rand() * 8);
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        const stripe = Math.floor((vertical ? x : y) / period) % 2 === 0 ? 170 : 60;
        data[y * SIZE + x] = Math.max(0, Math.min(255, stripe + Math.floor((rand() - 0.5) * 80)));
      }
    }
    out.push(encode({ width: SIZE, height: SIZE, data, channels: 1, depth: 8 }));
  }
  return out;
}

/** Serves /data/<i>.png after `latencyMs`, uncacheable, so every epoch goes to the "network". */
function pngServer(pngs: Uint8Array[], latencyMs: number): Plugin {
  return {
    name: 'bench-pngs',
    configureServer(server) {
      server.middlewares.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
        const m = /^\/data\/(\d+)\.png$/.exec(req.url ?? '');
        if (!m) return next();
        const png = pngs[Number(m[1])];
        setTimeout(() => {
          if (!png) {
            res.statusCode = 404;
            res.end();
            return;
          }
          res.setHeader('Content-Type', 'image/png');
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('Content-Length', String(png.byteLength));
          res.end(png);
        }, latencyMs);
      });
    },
  };
}

type Transport = 'h1' | 'h2';

/** A throwaway self-signed certificate for 127.0.0.1 (HTTP/2 needs TLS in browsers). */
function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'medfusion-bench-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
      ].concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Serve bench/tfjs + the PNGs over `transport`, run every row `reps` times in one page. */
async function runTransport(
  transport: Transport,
  pngs: Uint8Array[],
  cfg: BenchConfig,
  reps: number,
): Promise<RowResult[]> {
  const server = await createServer({
    configFile: false,
    root: resolve(here, 'tfjs'),
    logLevel: 'warn',
    resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
    worker: { format: 'es' },
    optimizeDeps: {
      entries: ['index.html', 'loader.worker.ts'],
      include: ['@tensorflow/tfjs', 'comlink'],
    },
    cacheDir: resolve(repoRoot, 'node_modules/.vite-bench-tfjs'),
    server: {
      host: '127.0.0.1',
      port: 0,
      fs: { allow: [repoRoot] },
      // no watcher, no HMR: edits elsewhere in the tree must not reload the page mid-run
      hmr: false,
      watch: null,
      // with TLS Vite serves HTTP/2: no 6-connections-per-host cap of HTTP/1.1
      ...(transport === 'h2' ? { https: selfSignedCert() } : {}),
    },
    plugins: [pngServer(pngs, LATENCY_MS)],
  });
  await server.listen();
  const address = server.httpServer?.address();
  if (address === null || address === undefined || typeof address === 'string') {
    throw new Error('the Vite server has no TCP address');
  }
  const url = `${transport === 'h2' ? 'https' : 'http'}://127.0.0.1:${address.port}/`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-dev-shm-usage',
      '--ignore-certificate-errors',
    ],
  });
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.text().startsWith('[bench]')) {
        console.error(`  page (${transport}): ${msg.text()}`);
      }
    });
    page.on('pageerror', (err) => console.error(`  page error: ${err.message}`));
    await page.goto(url);
    await page.waitForFunction(() => 'runBench' in window, undefined, { timeout: 120_000 });
    const protocol = await page.evaluate(
      () =>
        (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming)
          .nextHopProtocol,
    );
    console.error(`  ${transport}: page served over ${protocol}`);
    const runs: RowResult[][] = [];
    for (let r = 0; r < reps; r++) {
      runs.push(
        await page.evaluate(
          (c) =>
            (window as unknown as { runBench(c: BenchConfig): Promise<RowResult[]> }).runBench(c),
          cfg,
        ),
      );
    }
    return medianRows(runs);
  } finally {
    await browser.close();
    await server.close();
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const pngs = generatePngs(SAMPLES);
  const genMs = performance.now() - t0;
  const cfg: BenchConfig = {
    samples: SAMPLES,
    batchSize: 32,
    prefetchSize: intArg('prefetch', 10),
    concurrency: intArg('concurrency', 32),
    workers: intArg('workers', 2),
    backend: arg('backend') ?? 'cpu',
    seed: 7,
    rows: (arg('rows') ?? 'tfjs-data,ours-in-thread,ours-workers').split(','),
  };
  const reps = intArg('reps', 1);
  const transports = (arg('transport') ?? 'h1,h2').split(',') as Transport[];
  console.error(
    `tfjs bench: ${SAMPLES} PNGs ${SIZE}x${SIZE} (generated in ${genMs.toFixed(0)} ms), ` +
      `${LATENCY_MS} ms latency, batch ${cfg.batchSize}, backend ${cfg.backend}, ` +
      `tf.data prefetch ${cfg.prefetchSize}, our loads in flight ${cfg.concurrency}, ` +
      `workers ${cfg.workers}, transports ${transports.join('+')}, ${reps} rep(s)`,
  );
  const results: Array<RowResult & { transport: Transport }> = [];
  for (const transport of transports) {
    for (const row of await runTransport(transport, pngs, cfg, reps)) {
      results.push({ ...row, transport });
    }
  }
  report(results, cfg, reps);
}

/** Per row, the median of each figure over the repetitions. */
function medianRows(runs: RowResult[][]): RowResult[] {
  const first = runs[0] ?? [];
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
  };
  return first.map((row, i) => {
    const all = runs.map((run) => run[i] as RowResult);
    return {
      pipeline: row.pipeline,
      samplesPerSec: median(all.map((r) => r.samplesPerSec)),
      drainMs: median(all.map((r) => r.drainMs)),
      fitMs: median(all.map((r) => r.fitMs)),
      stallShare: median(all.map((r) => r.stallShare)),
      stepMs: median(all.map((r) => r.stepMs)),
      batches: row.batches,
      peakInFlight: Math.max(...all.map((r) => r.peakInFlight)),
    };
  });
}

function report(
  rows: Array<RowResult & { transport: Transport }>,
  cfg: BenchConfig,
  reps: number,
): void {
  const labels: Record<string, string> = {
    'tfjs-data': 'tf.data (prefetch 10)',
    'ours-in-thread': 'ours, in-thread executor',
    'ours-workers': `ours, Worker executor (${cfg.workers})`,
  };
  const transportLabel = { h1: 'HTTP/1.1', h2: 'HTTP/2' };
  const out = rows.map((r) => {
    const baseline = rows.find((b) => b.transport === r.transport && b.pipeline === 'tfjs-data');
    return {
      transport: r.transport,
      pipeline: r.pipeline,
      samplesPerSec: round(r.samplesPerSec, 1),
      ratio: baseline ? round(r.samplesPerSec / baseline.samplesPerSec, 2) : null,
      stallShare: round(r.stallShare, 4),
      fitMs: round(r.fitMs, 0),
      stepMs: round(r.stepMs, 1),
      peakInFlight: r.peakInFlight,
    };
  });
  const header = [
    'transport',
    'pipeline',
    '(a) samples/s',
    'vs tf.data',
    '(b) data stall',
    'fit epoch ms',
    'step ms (no wait)',
    'peak loads in flight',
  ];
  const lines = out.map((r) => [
    transportLabel[r.transport],
    labels[r.pipeline] ?? r.pipeline,
    r.samplesPerSec.toFixed(1),
    r.ratio === null ? '-' : `${r.ratio.toFixed(2)}x`,
    `${(r.stallShare * 100).toFixed(1)} %`,
    String(r.fitMs),
    r.stepMs.toFixed(1),
    String(r.peakInFlight),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...lines.map((l) => (l[i] as string).length)),
  );
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  console.log(fmt(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));
  console.log(
    `targets: (a) ours ≥ 4x tf.data; (b) our data-stall share < 5 %. ${SAMPLES} samples, ` +
      `${LATENCY_MS} ms latency, batch ${cfg.batchSize}, TF.js backend ${cfg.backend}, ` +
      `median of ${reps} run(s).`,
  );
  console.log(JSON.stringify({ bench: 'tfjs', rows: out }));
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
