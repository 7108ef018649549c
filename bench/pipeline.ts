// `pnpm bench pipeline [--scale F | --samples N] [--runs N] [--rows none,lru,prefetch,both,both-disk]
//    [--latency MS] [--backend cpu|webgl|auto] [--timeline-step S] [--loads N] [--profile]`
//
// The demo's conditions in one run: the demo's data (10,000 64×64 PNGs + CSV manifest, from
// demo/scripts/generate-data.mjs) served by the demo's own middleware with 10 ms added latency,
// the demo's pipeline (demo/src/pipeline.ts: decode in 2 Web Workers, memory cache, prefetch,
// OPFS disk tier) and the demo's fusion model trained with fitDataset on the page's thread
// (TF.js CPU backend unless --backend says otherwise), in headless Chromium. Per row, two epochs:
// cold (fresh pipeline, empty disk) and warm (the same pipeline's second epoch). Figures per
// epoch: samples/s, data-stall share (time in the data iterator's next() ÷ epoch time) and how
// much of that wait was step 1's (the pipeline starting up), median step time without the wait,
// mean engine loads in flight, CPU share of the Web Workers and of the page thread (from /proc,
// ÷ wall time × cores) and all of Chromium's CPU per delivered sample (training included), per
// source load the ms waiting for the image's bytes and the ms decoding (the decode workers' load
// phases), source loads, and the disk tier's hits and dropped writes
// (a full write-behind queue: those samples are not on disk for the next epoch). Rows alternate
// between runs (A B C, B C A, …); each figure is the median over --runs runs (default 3),
// vsNone per run is listed too.
// --scale F trains on the first 10,000 × F samples (same shape, shorter run). The timeline of
// one cold step (--timeline-step, default the middle one; 0 = none) is printed from the first
// run: when training asked, when each of its requests reached the server, what went first.
// --loads N fixes the engine's loads in flight (default: the demo's 'auto'). --profile takes a
// CPU profile of the page's thread over each row of the first run and prints who ran there
// (MedFusion's code, the demo's, TF.js and other dependencies, GC, idle); it samples every
// millisecond, a small cost that every row of run 1 pays alike.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { printTable } from './_table.js';
import { openPipelinePage } from './pipeline/harness.js';
import { describeProfile, summarizeProfile } from './pipeline/profile.js';
import { describeStep, type RequestEvent } from './pipeline/timeline.js';
import { ROWS, type Row, type RowConfig, type RowResult } from './pipeline/types.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const FULL = 10_000;
const LOADER_SEED = 7; // demo/src/pipeline.ts

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
function intArg(name: string, fallback: number): number {
  const raw = arg(name);
  const n = Number(raw);
  if (raw !== undefined && !(Number.isInteger(n) && n >= 0)) {
    throw new RangeError(`--${name} must be a non-negative integer, got ${raw}`);
  }
  return raw === undefined ? fallback : n;
}

const scale = Number(arg('scale') ?? 1);
if (!(scale > 0 && scale <= 1)) throw new RangeError(`--scale must be in (0, 1], got ${scale}`);
const SAMPLES = Math.min(FULL, Math.max(128, intArg('samples', Math.round(FULL * scale))));
const RUNS = Math.max(1, intArg('runs', 3));
const LATENCY = intArg('latency', 10);
const BACKEND = arg('backend') ?? 'cpu';
const STEPS = Math.ceil(SAMPLES / 32);
const TIMELINE_STEP = Math.min(STEPS, intArg('timeline-step', Math.ceil(STEPS / 2)));
const LOADS = intArg('loads', 0);
const PROFILE = process.argv.includes('--profile');
const rows = (arg('rows') ?? ROWS.join(',')).split(',') as Row[];
for (const r of rows) {
  if (!ROWS.includes(r)) throw new RangeError(`--rows: unknown row ${r} (${ROWS.join(', ')})`);
}
const CORES = availableParallelism();

/** Logs the arrival of every image request (before the demo's middleware adds latency). */
function requestLog(events: RequestEvent[]): Plugin {
  return {
    name: 'bench-request-log',
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        const m = /^\/data\/images\/(\d+)\.png/.exec(req.url ?? '');
        if (m)
          events.push({
            index: Number(m[1]),
            arrivedAt: performance.timeOrigin + performance.now(),
          });
        next();
      });
    },
  };
}

interface Figures {
  samplesPerSec: number;
  stallShare: number;
  firstWaitMs: number;
  computeMs: number;
  inFlight: number;
  peakInFlight: number;
  workersCpuShare: number;
  pageCpuShare: number;
  otherCpuShare: number;
  cpuMsPerSample: number;
  bytesMsPerLoad: number;
  decodeMsPerLoad: number;
  sourceLoads: number;
  diskHits: number;
  diskWritesDropped: number;
}

function figures(e: RowResult['cold']): Figures {
  const wallCores = e.ms * CORES;
  return {
    samplesPerSec: (e.samples * 1000) / e.ms,
    stallShare: e.waitMs / e.ms,
    firstWaitMs: e.firstWaitMs,
    computeMs: e.computeMs,
    inFlight: e.inFlight,
    peakInFlight: e.peakInFlight,
    workersCpuShare: e.cpu.workersMs / wallCores,
    pageCpuShare: e.cpu.pageMs / wallCores,
    otherCpuShare: e.cpu.otherMs / wallCores,
    cpuMsPerSample: (e.cpu.pageMs + e.cpu.workersMs + e.cpu.otherMs) / e.samples,
    bytesMsPerLoad: e.bytesMsPerLoad,
    decodeMsPerLoad: e.decodeMsPerLoad,
    sourceLoads: e.loadsTimed,
    diskHits: e.diskHits,
    diskWritesDropped: e.diskWritesDropped,
  };
}

/** One epoch of a row (this bench always runs two). */
function epochOf(r: RowResult, epoch: 'cold' | 'warm'): RowResult['cold'] {
  const e = r[epoch];
  if (e === null) throw new Error(`${r.strategy}: no ${epoch} epoch`);
  return e;
}
const warmOf = (r: RowResult) => epochOf(r, 'warm');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}
/** `min–max` of one figure over the runs. */
function range(fs: Figures[], k: keyof Figures, digits: number): string {
  const xs = fs.map((f) => f[k]);
  return `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
}
const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
const finiteOrNull = (x: number) => (Number.isFinite(x) ? x : null);

async function main(): Promise<void> {
  const gen = spawnSync('node', [resolve(repoRoot, 'demo/scripts/generate-data.mjs')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (gen.status !== 0) throw new Error('generating the demo data failed');
  const events: RequestEvent[] = [];
  const { page, backend, profile, close } = await openPipelinePage({
    latency: LATENCY,
    backend: BACKEND,
    plugins: [requestLog(events)],
  });
  const results: RowResult[][] = [];
  const timelines: string[] = [];
  const profiles: string[] = [];
  try {
    console.error(
      `pipeline bench: ${SAMPLES} samples of the demo's data, ${LATENCY} ms latency, batch 32, ` +
        `2 decode workers, TF.js ${backend} on the page's thread, ${CORES} cores, ${RUNS} run(s), ` +
        `loads in flight ${LOADS || 'auto'}, ` +
        `rows ${rows.join(' ')}`,
    );
    for (let run = 0; run < RUNS; run++) {
      const order = rows.map((_, i) => rows[(i + run) % rows.length] as Row);
      const got: RowResult[] = [];
      for (const strategy of order) {
        events.length = 0;
        const cfg: RowConfig = {
          strategy,
          samples: SAMPLES,
          backend: BACKEND,
          timelineStep: run === 0 ? TIMELINE_STEP : 0,
          loadsInFlight: LOADS,
          source: 'png',
          decodedDir: '',
          epochs: 2,
        };
        const stop = PROFILE && run === 0 ? await profile() : undefined;
        const r = await page.evaluate((c) => window.runRow(c), cfg);
        if (stop) profiles.push(describeProfile(strategy, summarizeProfile(await stop())));
        const f = figures(r.cold);
        console.error(
          `  run ${run + 1} ${strategy.padEnd(9)} cold ${f.samplesPerSec.toFixed(0)}/s stall ${(f.stallShare * 100).toFixed(0)} %, ` +
            `warm ${figures(warmOf(r)).samplesPerSec.toFixed(0)}/s stall ${(figures(warmOf(r)).stallShare * 100).toFixed(0)} %`,
        );
        if (r.timeline) {
          timelines.push(...describeStep(strategy, r.timeline, [...events], SAMPLES, LOADER_SEED));
        }
        got.push(r);
      }
      results.push(got);
    }
  } finally {
    await close();
  }
  report(results, timelines, profiles);
}

function report(runs: RowResult[][], timelines: string[], profiles: string[]): void {
  const out: Record<string, unknown>[] = [];
  const lines: string[][] = [];
  for (const epoch of ['cold', 'warm'] as const) {
    const perRun = (strategy: Row) =>
      runs.map((run) =>
        figures(epochOf(run.find((r) => r.strategy === strategy) as RowResult, epoch)),
      );
    const none = rows.includes('none') ? perRun('none') : undefined;
    for (const strategy of rows) {
      const fs = perRun(strategy);
      const m = (k: keyof Figures) => median(fs.map((f) => f[k]));
      const sps = m('samplesPerSec');
      const vsRuns = none
        ? fs.map((f, i) => f.samplesPerSec / (none[i] as Figures).samplesPerSec)
        : [];
      const vsNone = none ? sps / median(none.map((f) => f.samplesPerSec)) : Number.NaN;
      const row = {
        epoch,
        strategy,
        samplesPerSec: round(sps, 1),
        stallShare: round(m('stallShare'), 4),
        firstWaitMs: round(m('firstWaitMs'), 0),
        vsNone: round(vsNone, 2),
        vsNoneRuns: vsRuns.map((v) => round(v, 2)),
        computeMs: round(m('computeMs'), 1),
        inFlight: round(m('inFlight'), 1),
        peakInFlight: Math.max(...fs.map((f) => f.peakInFlight)),
        workersCpuShare: round(m('workersCpuShare'), 3),
        pageCpuShare: round(m('pageCpuShare'), 3),
        otherCpuShare: round(m('otherCpuShare'), 3),
        cpuMsPerSample: round(m('cpuMsPerSample'), 2),
        // per source load, from the decode workers' load phases (null: no load this epoch)
        bytesMsPerLoad: finiteOrNull(round(m('bytesMsPerLoad'), 1)),
        decodeMsPerLoad: finiteOrNull(round(m('decodeMsPerLoad'), 2)),
        sourceLoads: m('sourceLoads'),
        diskHits: m('diskHits'),
        diskWritesDropped: m('diskWritesDropped'),
      };
      out.push(row);
      lines.push([
        epoch,
        strategy,
        `${sps.toFixed(0)} (${range(fs, 'samplesPerSec', 0)})`,
        `${(row.stallShare * 100).toFixed(1)} %`,
        row.firstWaitMs.toFixed(0),
        Number.isFinite(vsNone) ? `${vsNone.toFixed(2)}x` : '-',
        row.vsNoneRuns.map((v) => v.toFixed(2)).join(' '),
        row.computeMs.toFixed(1),
        `${row.inFlight.toFixed(1)} (${row.peakInFlight})`,
        `${(row.workersCpuShare * 100).toFixed(0)} %`,
        `${(row.pageCpuShare * 100).toFixed(0)} %`,
        `${(row.otherCpuShare * 100).toFixed(0)} %`,
        `${row.cpuMsPerSample.toFixed(2)} (${range(fs, 'cpuMsPerSample', 2)})`,
        row.bytesMsPerLoad === null
          ? '-'
          : `${row.bytesMsPerLoad.toFixed(1)} / ${row.decodeMsPerLoad?.toFixed(2)}`,
        row.sourceLoads.toFixed(0),
        `${row.diskHits.toFixed(0)} / ${row.diskWritesDropped.toFixed(0)}`,
      ]);
    }
  }
  const header = [
    'epoch',
    'strategy',
    'samples/s (spread)',
    'data stall',
    'of it, step 1 ms',
    'vs none',
    'vs none per run',
    'step ms (no wait)',
    'loads in flight (peak)',
    'workers CPU',
    'page CPU',
    'rest of Chromium CPU',
    'Chromium CPU ms per sample',
    'per load: ms bytes / decode',
    'source loads',
    'disk hits / writes dropped',
  ];
  printTable(header, lines);
  console.log(
    `targets: every prefetch row ≥ 1.0x none (cold and warm, each run); both-disk cold ≥ 1.2x; ` +
      `both-disk warm stall < 5 %. ${SAMPLES} samples, ${LATENCY} ms latency, TF.js ${BACKEND}, ` +
      `median of ${runs.length} run(s); CPU shares are of ${CORES} cores × wall time.`,
  );
  for (const t of timelines) console.log(t);
  if (profiles.length > 0) {
    console.log("the page's thread over run 1's two epochs (CPU profile, share of wall time):");
    for (const p of profiles) console.log(p);
  }
  console.log(JSON.stringify({ bench: 'pipeline', rows: out }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
