// The stress harness (docs/browser-support.md, "Stress harness"): the demo's pipeline in its training worker and a
// plain DataLoader epoch in a worker, run many times in Chromium, Firefox and WebKitGTK while
// stress-ng keeps every core busy; a run that makes no progress for `stallMs` is a stall,
// reported with what each thread (page, training worker, decode workers) last did.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS } from '../e2e/demoServer.js';
import type { PlainMode } from './app/plainProtocol.js';
import { type StressApps, startApps } from './stressApps.js';
import { Browsers, type Driver, type Engine } from './stressBrowsers.js';
import { startHog } from './stressHog.js';
import { lastWords, type ReportServer, type RunTrace, startReportServer } from './stressReports.js';

/** The two workloads. */
export const SCENARIOS = ['demo', 'plain'] as const;
/** One of {@link SCENARIOS}. */
export type Scenario = (typeof SCENARIOS)[number];

/** What to run. */
export interface StressOptions {
  /** Engines, in order. */
  engines: readonly Engine[];
  /** Workloads, in order. */
  scenarios: readonly Scenario[];
  /** Runs of each workload in each engine. */
  runs: number;
  /** No breadcrumb for this long (ms) is a stall. */
  stallMs: number;
  /** Longest run (ms) even while it makes progress. */
  runTimeoutMs: number;
  /** Cores stress-ng keeps busy (0: none). */
  hogCpus: number;
  /**
   * The plain page's decode workers: started by the page (`hosted`) or by its training worker
   * (`nested`); `hang` stalls on purpose (the harness's own test).
   */
  mode: PlainMode;
  /** Samples of the data set. */
  samples: number;
  /** How Chromium and Firefox are started (WebKit: always directly). */
  driver: Driver;
  /** A prebuilt demo to serve instead of building it. */
  demoDist?: string;
  /** Where lines go. */
  log: (line: string) => void;
  /** Aborting it stops after the current run. */
  signal?: AbortSignal;
}

/** How one run ended. */
export interface RunResult {
  engine: Engine;
  scenario: Scenario;
  /** `done`, `stalled`, `failed` (the page said error), `slow` (past runTimeoutMs while progressing). */
  end: 'done' | 'stalled' | 'failed' | 'slow';
  /** Wall time of the run. */
  ms: number;
  /** The page's status line, or for a stall what each thread last did. */
  detail: string[];
}

/** Runs per engine and workload, by how they ended. */
export interface StressSummary {
  results: RunResult[];
  /** One line per engine and workload: `firefox demo: 10 runs, 10 done, 0 stalled, …`. */
  table: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until `run` reports its outcome, stalls, or takes too long. */
async function watch(run: RunTrace, o: StressOptions, started: number): Promise<RunResult['end']> {
  for (;;) {
    if (run.outcome) return run.outcome.state === 'done' ? 'done' : 'failed';
    const now = Date.now();
    if (now - run.lastHeard >= o.stallMs) return 'stalled';
    if (now - started >= o.runTimeoutMs) return 'slow';
    await sleep(200);
  }
}

function pageUrl(apps: StressApps, scenario: Scenario, report: string, o: StressOptions): string {
  const q = new URLSearchParams({ 'e2e-report': report, trace: '1' });
  if (scenario === 'demo') {
    q.set('epochs', '1');
    q.set('samples', String(o.samples));
    return `${apps.demo}?${q}`;
  }
  q.set('mode', o.mode);
  q.set('samples', String(o.samples));
  return `${apps.plain}?${q}`;
}

async function oneRun(
  id: string,
  engine: Engine,
  scenario: Scenario,
  ctx: { apps: StressApps; reports: ReportServer; browsers: Browsers },
  o: StressOptions,
): Promise<RunResult> {
  const run = ctx.reports.open(id);
  const profile = join(ARTIFACTS, 'stress', 'profiles', id);
  rmSync(profile, { recursive: true, force: true });
  const started = Date.now();
  const url = pageUrl(ctx.apps, scenario, `${ctx.reports.url}/run/${id}`, o);
  const browser = await ctx.browsers.launch(engine, url, profile);
  let exited = '';
  browser.onExit((why) => {
    exited = `the browser ${why} before the run ended`;
    run.lastHeard = 0; // ends the wait at once
  });
  try {
    let end = await watch(run, o, started);
    if (exited && end === 'stalled') end = 'failed';
    const detail =
      end === 'done' || end === 'failed'
        ? [run.outcome?.status ?? exited]
        : [
            `no progress for ${((Date.now() - run.lastHeard) / 1000).toFixed(0)} s`,
            ...lastWords(run),
          ];
    return { engine, scenario, end, ms: Date.now() - started, detail };
  } finally {
    await browser.stop();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Run the harness; stops every hog and browser it started before it returns or throws. */
export async function runStress(o: StressOptions): Promise<StressSummary> {
  const pages = { demo: o.scenarios.includes('demo'), plain: o.scenarios.includes('plain') };
  const apps = await startApps(o.samples, pages, o.demoDist);
  const reports = await startReportServer();
  const browsers = new Browsers(o.driver);
  const total = o.engines.length * o.scenarios.length * o.runs;
  const results: RunResult[] = [];
  if (o.hogCpus > 0) o.log(`[stress] each run under stress-ng --cpu ${o.hogCpus}`);
  try {
    let n = 0;
    for (const engine of o.engines) {
      for (const scenario of o.scenarios) {
        for (let i = 0; i < o.runs && !o.signal?.aborted; i++) {
          const id = `${engine}-${scenario}-${i}-${Date.now().toString(36)}`;
          // a hog per run, ending by itself soon after the run's bound should the harness die
          const hog =
            o.hogCpus > 0 ? await startHog(o.hogCpus, o.runTimeoutMs / 1000 + 30) : undefined;
          let r: RunResult;
          try {
            r = await oneRun(id, engine, scenario, { apps, reports, browsers }, o);
          } finally {
            await hog?.stop();
          }
          results.push(r);
          n++;
          o.log(
            `[stress] ${n}/${total} ${engine} ${scenario} #${i + 1}: ${r.end} in ${(r.ms / 1000).toFixed(1)} s`,
          );
          if (r.end !== 'done') for (const line of r.detail) o.log(`    ${line}`);
        }
      }
    }
  } finally {
    await browsers.close();
    await reports.close();
    await apps.close();
  }
  return { results, table: summarize(results, o) };
}

function summarize(results: RunResult[], o: StressOptions): string[] {
  const lines: string[] = [];
  for (const engine of o.engines) {
    for (const scenario of o.scenarios) {
      const mine = results.filter((r) => r.engine === engine && r.scenario === scenario);
      const count = (end: RunResult['end']) => mine.filter((r) => r.end === end).length;
      const median = [...mine].map((r) => r.ms).sort((a, b) => a - b)[mine.length >> 1] ?? 0;
      lines.push(
        `${engine}${engine === 'webkit' ? '' : ` (${o.driver})`} ${scenario}` +
          `${scenario === 'plain' ? ` (${o.mode})` : ''}: ${mine.length} runs, ` +
          `${count('done')} done, ${count('stalled')} stalled, ${count('failed')} failed, ` +
          `${count('slow')} slow; median ${(median / 1000).toFixed(1)} s`,
      );
    }
  }
  return lines;
}
