// The cold-epoch row of `pnpm bench pack` (issue 38, cold-epoch-decoded-vs-png): the demo's cold
// epoch from `medfusion pack --decode` shards against the demo's per-file PNGs over HTTP, in
// Chromium, through the demo bench's own page (bench/pipeline/: the demo's pipeline, fusion model,
// batch 32, TF.js on the page's thread, Chromium CPU per thread from /proc).
// - Data: the demo generator's 10,000 64x64 grey PNGs + manifest.csv (demo/scripts/
//   generate-data.mjs), and the same CSV packed with `medfusion pack <manifest.csv> --decode
//   --size 64x64 --channels 1` (`.npy` uint8 members + `.json` + `.cls`, 64 MB shards). Both are
//   served by one server on 127.0.0.1 (the demo's data middleware: the same 10 ms added latency
//   per response, Range requests for the shards).
// - png: the demo's CSV source, PNGs decoded in its 2 Web Workers. decoded: WebDatasetSource over
//   the shards (merged range reads on the page, shard-aware shuffle, as the demo's shard source),
//   each sample's bytes moved to 2 Web Workers (the source's transformExecutor, exposeTransform)
//   where core's decodeNpy views the `.npy`, scales it to [0, 1] and parses the `.json` fields.
//   decoded-page: the same, the same function as the source's transform on the page's thread
//   (how this row ran before the workers; kept so one run shows what the workers change).
// - After an uncounted warm-up round (256 samples each), each round runs both, order alternating,
//   in one Chromium process, each a fresh pipeline (the demo's strategy --epoch-strategy, default
//   `both`: memory cache + prefetch, no disk tier) over the first --epoch-samples samples, one
//   epoch (cold). Figures: samples/s (median and
//   range over rounds), ratio decoded-page/png per round and its median (the headline, target
//   >= 1.5: decoding on the page is the default and the faster path for these small arrays; the
//   same for decoded-in-workers/png, for reference), Chromium CPU ms per sample on the page's thread, in the Web
//   Workers and in the rest of Chromium.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, intArg } from '../_args.js';
import { median, round } from '../_stats.js';
import { printTable } from '../_table.js';
import { openPipelinePage } from '../pipeline/harness.js';
import { ROWS, type Row, type RowConfig } from '../pipeline/types.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LATENCY_MS = 10; // the demo's default
const TARGET = 1.5;
/** Samples per competitor in the uncounted warm-up round. */
const WARMUP_SAMPLES = 256;
const COMPETITORS = ['png', 'decoded', 'decoded-page'] as const;
type Competitor = (typeof COMPETITORS)[number];
const LABELS: Record<Competitor, string> = {
  png: 'per-file PNG over HTTP (before)',
  decoded: 'pack --decode shards, 2 decode workers',
  'decoded-page': "pack --decode shards, decode on page's thread",
};

/** One cold epoch's figures. */
interface EpochFigures {
  samplesPerSec: number;
  pageMsPerSample: number;
  workersMsPerSample: number;
  otherMsPerSample: number;
  totalMsPerSample: number;
}

/** The demo generator's data folder (as the demo's server resolves it). */
function demoDataDir(): string {
  return resolve(process.env.MEDFUSION_DEMO_DATA ?? join(repo, 'demo/.data/synthetic'));
}

/** Run a command to completion; its wall seconds. */
function run(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

const spread = (xs: number[], digits: number) =>
  `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;

/**
 * Measure the cold-epoch row; `tmp` is the bench's scratch folder, `bin` the built CLI.
 * `rounds` rounds; flags --epoch-samples (default 2000), --epoch-strategy (default both).
 */
export async function runColdEpoch(
  tmp: string,
  bin: string,
  rounds: number,
): Promise<Record<string, unknown>[]> {
  const samples = Math.min(10_000, intArg('epoch-samples', 2000));
  const strategy = (arg('epoch-strategy') ?? 'both') as Row;
  if (!ROWS.includes(strategy)) {
    throw new RangeError(`--epoch-strategy: unknown strategy ${strategy} (${ROWS.join(', ')})`);
  }
  run(process.execPath, [join(repo, 'demo/scripts/generate-data.mjs')]);
  const data = demoDataDir();
  // One served folder: the demo's manifest and PNGs (links) beside the packed shards.
  const served = join(tmp, 'epoch-data');
  mkdirSync(served, { recursive: true });
  symlinkSync(join(data, 'manifest.csv'), join(served, 'manifest.csv'));
  symlinkSync(join(data, 'images'), join(served, 'images'));
  const packSecs = run(process.execPath, [
    bin,
    'pack',
    join(data, 'manifest.csv'),
    '--images',
    join(data, 'images'),
    '--out',
    join(served, 'decoded'),
    '--decode',
    '--size',
    '64x64',
    '--channels',
    '1',
  ]);
  console.error(
    `cold epoch: packed the demo's 10,000 PNGs with --decode in ${packSecs.toFixed(1)} s`,
  );
  const previous = process.env.MEDFUSION_DEMO_DATA;
  process.env.MEDFUSION_DEMO_DATA = served; // read by the demo's data middleware per request
  const figures = new Map<Competitor, EpochFigures[]>(COMPETITORS.map((c) => [c, []]));
  const ratios: number[] = [];
  const pageRatios: number[] = [];
  const page = await openPipelinePage({ latency: LATENCY_MS, backend: 'cpu' });
  try {
    console.error(
      `cold epoch: ${samples} samples, strategy ${strategy}, batch 32, TF.js ${page.backend} on the page's thread, ` +
        `${LATENCY_MS} ms latency, ${rounds} round(s), ${COMPETITORS.join(', ')} rotating`,
    );
    // Round 0 is a warm-up of WARMUP_SAMPLES, not counted: the first use of the decode workers'
    // module (Vite compiles it on first request) and of the shards' code is paid there.
    for (let r = 0; r <= rounds; r++) {
      const n = r === 0 ? Math.min(WARMUP_SAMPLES, samples) : samples;
      const got = new Map<Competitor, EpochFigures>();
      for (let k = 0; k < COMPETITORS.length; k++) {
        const source = COMPETITORS[(r + k) % COMPETITORS.length] as Competitor;
        const cfg: RowConfig = {
          strategy,
          samples: n,
          backend: 'cpu',
          timelineStep: 0,
          loadsInFlight: 0,
          source,
          decodedDir: 'decoded',
          epochs: 1,
        };
        const { cold } = await page.page.evaluate((c) => window.runRow(c), cfg);
        if (cold.samples !== n) {
          throw new Error(`${source}: the epoch delivered ${cold.samples} samples, not ${n}`);
        }
        const f: EpochFigures = {
          samplesPerSec: (cold.samples * 1000) / cold.ms,
          pageMsPerSample: cold.cpu.pageMs / cold.samples,
          workersMsPerSample: cold.cpu.workersMs / cold.samples,
          otherMsPerSample: cold.cpu.otherMs / cold.samples,
          totalMsPerSample:
            (cold.cpu.pageMs + cold.cpu.workersMs + cold.cpu.otherMs) / cold.samples,
        };
        got.set(source, f);
        if (r > 0) figures.get(source)?.push(f);
      }
      const png = got.get('png') as EpochFigures;
      const dec = got.get('decoded') as EpochFigures;
      const onPage = got.get('decoded-page') as EpochFigures;
      if (r > 0) {
        ratios.push(dec.samplesPerSec / png.samplesPerSec);
        pageRatios.push(onPage.samplesPerSec / png.samplesPerSec);
      }
      console.error(
        `  ${r === 0 ? `warm-up (${n} samples)` : `round ${r}`}: png ${png.samplesPerSec.toFixed(0)}/s, decoded ${dec.samplesPerSec.toFixed(0)}/s, ` +
          `decoded-page ${onPage.samplesPerSec.toFixed(0)}/s, ratio ${(dec.samplesPerSec / png.samplesPerSec).toFixed(2)} ` +
          `(decoded-page ${(onPage.samplesPerSec / png.samplesPerSec).toFixed(2)})`,
      );
    }
  } finally {
    await page.close();
    if (previous === undefined) delete process.env.MEDFUSION_DEMO_DATA;
    else process.env.MEDFUSION_DEMO_DATA = previous;
  }
  const out: Record<string, unknown> = {
    name: 'cold-epoch-decoded-vs-png',
    // The headline is the default path (decode on the page: a .npy view costs less than a
    // worker round trip); decode in workers is kept as its own ratio.
    ratio: round(median(pageRatios), 3),
    ratios: pageRatios.map((x) => round(x, 2)),
    decodedWorkersRatio: round(median(ratios), 3),
    decodedWorkersRatios: ratios.map((x) => round(x, 2)),
    target: TARGET,
    samples,
    strategy,
    rounds,
  };
  const table: string[][] = [];
  for (const c of COMPETITORS) {
    const fs = figures.get(c) as EpochFigures[];
    const m = (k: keyof EpochFigures) => median(fs.map((f) => f[k]));
    out[c === 'decoded-page' ? 'decodedPage' : c] = {
      samplesPerSec: round(m('samplesPerSec'), 1),
      pageCpuMsPerSample: round(m('pageMsPerSample'), 2),
      workersCpuMsPerSample: round(m('workersMsPerSample'), 2),
      otherCpuMsPerSample: round(m('otherMsPerSample'), 2),
      cpuMsPerSample: round(m('totalMsPerSample'), 2),
    };
    table.push([
      LABELS[c],
      `${m('samplesPerSec').toFixed(0)} (${spread(
        fs.map((f) => f.samplesPerSec),
        0,
      )})`,
      m('pageMsPerSample').toFixed(2),
      m('workersMsPerSample').toFixed(2),
      m('otherMsPerSample').toFixed(2),
      m('totalMsPerSample').toFixed(2),
    ]);
  }
  printTable(
    [
      'cold epoch from',
      'samples/s (range)',
      'page CPU ms/sample',
      'workers CPU ms/sample',
      'rest of Chromium ms/sample',
      'all Chromium ms/sample',
    ],
    table,
  );
  const ratio = median(pageRatios);
  console.log(
    `cold epoch decoded (on the page)/png: ${ratio.toFixed(2)}x [${pageRatios.map((x) => x.toFixed(2)).join(', ')}] ` +
      `(target >= ${TARGET}x: ${ratio >= TARGET ? 'met' : 'NOT met'}); decoded in workers/png: ` +
      `${median(ratios).toFixed(2)}x [${ratios.map((x) => x.toFixed(2)).join(', ')}]; CPU figures are medians per round`,
  );
  return [out];
}
