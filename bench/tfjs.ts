// `pnpm bench tfjs [--samples N | --scale F] [--latency MS] [--backend cpu|webgl] [--workers N]
//    [--concurrency N] [--prefetch N] [--tuned-prefetch N] [--rows a,b,c] [--reps N]
//    [--transport h1,h1x4,h2] [--trace]`   (rows: fetch-only, tfjs-data, tfjs-data-tuned, ours-in-thread,
//    ours-workers; transports: HTTP/1.1 one origin, HTTP/1.1 over 4 origins, HTTP/2)
//
// Autotune rows (issue 15): `ours-in-thread@WxP` runs W loads in flight with prefetch P,
// `ours-in-thread@auto` leaves both 'auto' (same for ours-workers). With an @auto row, the
// summary adds { scenario, config: 'reference' | 'grid-best' | 'auto', samplesPerSec, ofBest }
// rows: reference = @2x10 (the reference's knobs), grid-best = the best other @WxP row, e.g.
//   --rows ours-in-thread@2x10,ours-in-thread@8x16,ours-in-thread@16x32,ours-in-thread@32x64,
//          ours-in-thread@64x128,ours-in-thread@auto
//
// Feeding a TF.js model in Chromium: tf.data (generator → mapAsync decode → prefetch(10) →
// batch(32)) against our pipeline (DataLoader → PrefetchDataset → toTfDataset) with loads run
// in-thread or by the Web Worker executor (2 workers). Source: 2,000 generated 64×64 PNGs served
// from memory by a plain node:http / node:http2 server on 127.0.0.1 (keep-alive, pre-encoded
// bytes, 10 ms added latency by setTimeout, no caching), apart from the Vite dev server that
// serves the page's modules; over HTTP/1.1 the samples are spread over 4 origins so neither
// side is held to Chromium's 6 connections per host. Every row fetches, decodes
// (createImageBitmap + OffscreenCanvas) and normalises to Float32 the same way.
// Per row, in the same page: (a) throughput, one epoch drained as fitDataset takes it (tensors
// made and disposed, no training); (b) one epoch of fitDataset on a small conv net, with the
// share of the epoch spent waiting in the data iterator's next(). The "fetch only" row is the
// transport's ceiling: the same requests, bodies read, nothing decoded. Rows run one after the
// other in one page of one Chromium; each measurement builds a fresh pipeline (no cache
// carries over). bench/tfjs/probe.ts breaks the ceiling down (fetch rate by latency, loads in
// flight, page vs worker, transport; decode cost; server CPU per request).
import { chromium } from 'playwright';
import { arg, intArg, numArg } from './_args.js';
import { chromiumLaunchOptions } from './_chromium.js';
import { callBenchPage, openBenchPage, serveBenchPage } from './_page.js';
import { median, round } from './_stats.js';
import { printTable } from './_table.js';
import { startDataServer } from './tfjs/dataServer.js';
import type { BenchConfig, RowResult } from './tfjs/main.js';
import { generatePngs, PNG_SIZE } from './tfjs/pngs.js';

/** --samples N, or 2,000 × --scale (same shape, shorter run). */
const SAMPLES = intArg('samples', Math.max(64, Math.round(2000 * numArg('scale', 1))));
const LATENCY_MS = Number(arg('latency') ?? 10);
const SIZE = PNG_SIZE;

type Transport = 'h1' | 'h1x4' | 'h2';

/**
 * Serve the PNGs over `transport` (plain node server, apart from Vite), the page's modules
 * from Vite, and run every row `reps` times in one page.
 */
async function runTransport(
  transport: Transport,
  pngs: Uint8Array[],
  baseCfg: Omit<BenchConfig, 'origins'>,
  reps: number,
): Promise<{ rows: MedianRow[]; serverMsPerRequest: number }> {
  const data = await startDataServer(
    pngs,
    LATENCY_MS,
    transport === 'h2' ? 'h2' : 'h1',
    transport === 'h1x4' ? 4 : 1,
  );
  const cfg: BenchConfig = { ...baseCfg, origins: data.origins };
  const server = await serveBenchPage('tfjs', {
    entries: ['index.html', 'loader.worker.ts'],
    include: ['@tensorflow/tfjs', 'comlink'],
  });
  const browser = await chromium.launch(chromiumLaunchOptions(['--ignore-certificate-errors']));
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await openBenchPage(context, server.url, 'runBench', (msg) => {
      if (msg.type() === 'error' || msg.text().startsWith('[bench]')) {
        console.error(`  page (${transport}): ${msg.text()}`);
      }
    });
    const protocol = await page.evaluate(async (origin) => {
      await (await fetch(`${origin}/data/0.png`)).arrayBuffer();
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      return entries.find((e) => e.name.startsWith(origin))?.nextHopProtocol ?? '?';
    }, data.origins[0] as string);
    console.error(`  ${transport}: data served over ${protocol} from ${data.origins.join(' ')}`);
    data.cpuMs();
    const requests0 = data.requests();
    const runs: RowResult[][] = [];
    for (let r = 0; r < reps; r++) {
      runs.push(await callBenchPage<BenchConfig, RowResult[]>(page, 'runBench', cfg));
    }
    const serverMsPerRequest = data.cpuMs() / Math.max(1, data.requests() - requests0);
    return { rows: medianRows(runs), serverMsPerRequest };
  } finally {
    await browser.close();
    await server.close();
    await data.close();
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const pngs = generatePngs(SAMPLES);
  const genMs = performance.now() - t0;
  const cfg: Omit<BenchConfig, 'origins'> = {
    samples: SAMPLES,
    batchSize: 32,
    prefetchSize: intArg('prefetch', 10),
    tunedPrefetch: intArg('tuned-prefetch', 32),
    concurrency: intArg('concurrency', 32),
    workers: intArg('workers', 2),
    backend: arg('backend') ?? 'cpu',
    seed: 7,
    trace: process.argv.includes('--trace'),
    rows: (arg('rows') ?? 'fetch-only,tfjs-data,tfjs-data-tuned,ours-in-thread,ours-workers').split(
      ',',
    ),
  };
  const reps = intArg('reps', 1);
  const transports = (arg('transport') ?? 'h1x4,h2').split(',') as Transport[];
  console.error(
    `tfjs bench: ${SAMPLES} PNGs ${SIZE}x${SIZE} (generated in ${genMs.toFixed(0)} ms), ` +
      `${LATENCY_MS} ms latency, batch ${cfg.batchSize}, backend ${cfg.backend}, ` +
      `tf.data prefetch ${cfg.prefetchSize}, our loads in flight ${cfg.concurrency}, ` +
      `workers ${cfg.workers}, transports ${transports.join('+')}, ${reps} rep(s)`,
  );
  const results: Array<MedianRow & { transport: Transport }> = [];
  const serverCost: string[] = [];
  for (const transport of transports) {
    const { rows, serverMsPerRequest } = await runTransport(transport, pngs, cfg, reps);
    for (const row of rows) results.push({ ...row, transport });
    serverCost.push(`${transport} ${serverMsPerRequest.toFixed(2)} ms`);
  }
  report(results, cfg, reps, `data server CPU per request: ${serverCost.join(', ')}`);
}

/** A row's medians over the repetitions, with the range of its samples/s. */
type MedianRow = RowResult & { spread: [number, number] };

/** Per row, the median of each figure over the repetitions. */
function medianRows(runs: RowResult[][]): MedianRow[] {
  const first = runs[0] ?? [];
  return first.map((row, i) => {
    const all = runs.map((run) => run[i] as RowResult);
    return {
      pipeline: row.pipeline,
      samplesPerSec: median(all.map((r) => r.samplesPerSec)),
      spread: [
        Math.min(...all.map((r) => r.samplesPerSec)),
        Math.max(...all.map((r) => r.samplesPerSec)),
      ],
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
  rows: Array<MedianRow & { transport: Transport }>,
  cfg: Omit<BenchConfig, 'origins'>,
  reps: number,
  footer: string,
): void {
  const labels: Record<string, string> = {
    'fetch-only': `fetch only, no decode (${cfg.concurrency} in flight)`,
    'tfjs-data': `tf.data (prefetch ${cfg.prefetchSize})`,
    'tfjs-data-tuned': `tf.data tuned (prefetch ${cfg.tunedPrefetch})`,
    'ours-in-thread': 'ours, in-thread executor',
    'ours-workers': `ours, Worker executor (${cfg.workers})`,
  };
  const transportLabel = { h1: 'HTTP/1.1', h1x4: 'HTTP/1.1 x4 origins', h2: 'HTTP/2' };
  const num = (x: number, digits: number) => (Number.isFinite(x) ? round(x, digits) : null);
  const out = rows.map((r) => {
    const of = (name: string) =>
      rows.find((b) => b.transport === r.transport && b.pipeline === name)?.samplesPerSec;
    const baseline = of('tfjs-data');
    const ceiling = of('fetch-only');
    return {
      transport: r.transport,
      pipeline: r.pipeline,
      samplesPerSec: round(r.samplesPerSec, 1),
      spread: [round(r.spread[0], 1), round(r.spread[1], 1)] as [number, number],
      ratio: baseline ? round(r.samplesPerSec / baseline, 2) : null,
      ofCeiling: ceiling ? round(r.samplesPerSec / ceiling, 2) : null,
      stallShare: num(r.stallShare, 4),
      fitMs: num(r.fitMs, 0),
      stepMs: num(r.stepMs, 1),
      peakInFlight: r.peakInFlight,
    };
  });
  const header = [
    'transport',
    'pipeline',
    '(a) samples/s (min–max)',
    'vs tf.data',
    'of fetch ceiling',
    '(b) data stall',
    'fit epoch ms',
    'step ms (no wait)',
    'peak loads in flight',
  ];
  const lines = out.map((r) => [
    transportLabel[r.transport],
    labels[r.pipeline] ?? r.pipeline,
    `${r.samplesPerSec.toFixed(1)} (${r.spread[0].toFixed(0)}–${r.spread[1].toFixed(0)})`,
    r.ratio === null ? '-' : `${r.ratio.toFixed(2)}x`,
    r.ofCeiling === null ? '-' : `${(r.ofCeiling * 100).toFixed(0)} %`,
    r.stallShare === null ? '-' : `${(r.stallShare * 100).toFixed(1)} %`,
    r.fitMs === null ? '-' : String(r.fitMs),
    r.stepMs === null ? '-' : r.stepMs.toFixed(1),
    String(r.peakInFlight),
  ]);
  printTable(header, lines);
  const autotune = autotuneRows(out);
  if (autotune.length > 0) {
    printTable(
      ['scenario', 'config', 'samples/s (min–max)', 'of grid-best'],
      autotune.map((r) => [
        r.scenario,
        `${r.config} (${r.detail})`,
        `${r.samplesPerSec.toFixed(1)} (${r.spread[0].toFixed(0)}–${r.spread[1].toFixed(0)})`,
        r.ofBest.toFixed(3),
      ]),
    );
  }
  console.log(
    `targets: (a) ours ≥ 4x tf.data; (b) our data-stall share < 5 %. ${SAMPLES} samples, ` +
      `${LATENCY_MS} ms latency, batch ${cfg.batchSize}, TF.js backend ${cfg.backend}, ` +
      `median of ${reps} run(s). ${footer}.`,
  );
  console.log(
    JSON.stringify({ bench: 'tfjs', rows: out, ...(autotune.length ? { autotune } : {}) }),
  );
}

/** The autotune summary: per transport and pipeline with an `@auto` row, reference / grid-best / auto. */
function autotuneRows(
  out: {
    transport: Transport;
    pipeline: string;
    samplesPerSec: number;
    spread: [number, number];
  }[],
) {
  const rows: {
    scenario: string;
    config: 'reference' | 'grid-best' | 'auto';
    detail: string;
    samplesPerSec: number;
    spread: [number, number];
    ofBest: number;
  }[] = [];
  for (const auto of out.filter((r) => r.pipeline.endsWith('@auto'))) {
    const base = auto.pipeline.slice(0, -'@auto'.length);
    const mine = out.filter(
      (r) => r.transport === auto.transport && r.pipeline.startsWith(`${base}@`),
    );
    const reference = mine.find((r) => r.pipeline === `${base}@2x10`);
    const grid = mine.filter((r) => r !== auto && r !== reference);
    if (grid.length === 0) continue;
    const best = grid.reduce((a, b) => (b.samplesPerSec > a.samplesPerSec ? b : a));
    const scenario = `tfjs/${auto.transport}/${base}`;
    for (const [config, r] of [
      ['reference', reference],
      ['grid-best', best],
      ['auto', auto],
    ] as const) {
      if (r === undefined) continue;
      rows.push({
        scenario,
        config,
        detail: r.pipeline.slice(base.length + 1),
        samplesPerSec: r.samplesPerSec,
        spread: r.spread,
        ofBest: round(r.samplesPerSec / best.samplesPerSec, 3),
      });
    }
  }
  return rows;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
