// `pnpm bench autotune [--scale 0.1] [--rounds 5] [--trace shuffled-epochs|local-repeats]`
// The seed scenario (DESIGN.md: 10,000 samples × scale, each read 2–3 times, 10 ms of
// overlappable latency per load, cacheSize 1,000 × scale, the plan handed over) read by a
// one-sample-at-a-time consumer, under three configurations of cacheType 'both':
//   reference  the reference's knobs: prefetchSize 10, numWorkers 2
//   grid-best  the best of a hand-tuning grid: numWorkers × prefetchSize in {2, 8, 32} × {10, 32, 128}
//   auto       createCachedDataset's defaults (numWorkers / prefetchSize 'auto')
// Every configuration runs once per round, the order rotating each round; a figure is the
// median of the rounds (spread printed). ofBest = samples/s ÷ grid-best's, same scenario.
// Target (issue 15): auto ≥ 0.9 of grid-best and ≥ 3× reference.
import { type CreateCachedDatasetOptions, createCachedDataset } from '@medfusion/core';
import { type SeedSample, seedSource } from './_seedSource.js';
import { localRepeats, shuffledEpochs } from './_trace.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const SCALE = Number(arg('scale') ?? 1);
if (!(SCALE > 0 && SCALE <= 1))
  throw new RangeError(`--scale must be in (0, 1], got ${arg('scale')}`);
const ROUNDS = Number(arg('rounds') ?? 5);
if (!(Number.isInteger(ROUNDS) && ROUNDS >= 1))
  throw new RangeError(`--rounds must be a positive integer, got ${arg('rounds')}`);
const N = Math.round(10_000 * SCALE);
const CACHE = Math.round(1000 * SCALE);
const WINDOW = Math.round(2000 * SCALE);
const LATENCY_MS = 10;
const SEED = 0x5eed;

type Sample = SeedSample;

const source = seedSource(N, LATENCY_MS);

interface Config {
  name: string;
  group: 'reference' | 'grid' | 'auto';
  options: CreateCachedDatasetOptions<Sample>;
}

const configs: Config[] = [
  {
    name: 'reference',
    group: 'reference',
    options: { cacheType: 'both', cacheSize: CACHE, prefetchSize: 10, numWorkers: 2 },
  },
  { name: 'auto', group: 'auto', options: { cacheType: 'both', cacheSize: CACHE } },
];
for (const numWorkers of [2, 8, 32]) {
  for (const prefetchSize of [10, 32, 128]) {
    configs.push({
      name: `grid w${numWorkers} p${prefetchSize}`,
      group: 'grid',
      options: { cacheType: 'both', cacheSize: CACHE, prefetchSize, numWorkers },
    });
  }
}

/** Samples per second of one epoch of `trace` under `c`. */
async function runOnce(trace: Int32Array, c: Config): Promise<number> {
  const ds = createCachedDataset(source, c.options);
  ds.setPlan(trace);
  const t0 = performance.now();
  for (let p = 0; p < trace.length; p++) {
    const sample = await ds.get(trace[p]!);
    if (sample.image[0] !== trace[p]) throw new Error(`wrong sample at read ${p}`);
  }
  const wallMs = performance.now() - t0;
  await ds.close();
  return (trace.length * 1000) / wallMs;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Row {
  scenario: string;
  config: 'reference' | 'grid-best' | 'auto';
  /** The configuration behind the row (grid-best: which grid point). */
  detail: string;
  samplesPerSec: number;
  ofBest: number;
  /** Spread of the rounds: (max − min) / median. */
  spread: number;
}

const traces: [string, Int32Array][] = [
  ['seed/shuffled-epochs', shuffledEpochs(N, SEED)],
  ['seed/local-repeats', localRepeats(N, WINDOW, SEED + 1)],
];
const onlyTrace = arg('trace');
console.log(
  `autotune bench: seed scenario, ${N} samples, cacheSize ${CACHE}, ${LATENCY_MS} ms per load, ` +
    `${ROUNDS} rounds (scale ${SCALE})`,
);
const rows: Row[] = [];
for (const [scenario, trace] of traces) {
  if (onlyTrace && !scenario.endsWith(onlyTrace)) continue;
  const runs = new Map<string, number[]>(configs.map((c) => [c.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < configs.length; k++) {
      const c = configs[(k + r) % configs.length]!;
      runs.get(c.name)!.push(await runOnce(trace, c));
    }
  }
  const fig = (name: string) => {
    const xs = runs.get(name)!;
    const m = median(xs);
    return { m, spread: (Math.max(...xs) - Math.min(...xs)) / m };
  };
  console.log(`\n${scenario}: ${trace.length} reads`);
  for (const c of configs) {
    const f = fig(c.name);
    console.log(
      `  ${c.name.padEnd(16)} ${f.m.toFixed(0).padStart(7)} samples/s  ±${(f.spread * 50).toFixed(1)} %`,
    );
  }
  const grid = configs.filter((c) => c.group === 'grid');
  const best = grid.reduce((a, b) => (fig(b.name).m > fig(a.name).m ? b : a));
  const bestSps = fig(best.name).m;
  const row = (config: Row['config'], name: string): Row => {
    const f = fig(name);
    return {
      scenario,
      config,
      detail: name,
      samplesPerSec: f.m,
      ofBest: f.m / bestSps,
      spread: f.spread,
    };
  };
  rows.push(row('reference', 'reference'), row('grid-best', best.name), row('auto', 'auto'));
}

console.log('\n| scenario | config | samples/s | of grid-best |');
console.log('|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.scenario} | ${r.config}${r.config === 'grid-best' ? ` (${r.detail})` : ''} | ` +
      `${r.samplesPerSec.toFixed(0)} ±${(r.spread * 50).toFixed(1)} % | ${r.ofBest.toFixed(3)} |`,
  );
}
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
console.log(
  JSON.stringify({
    bench: 'autotune',
    scale: SCALE,
    rounds: ROUNDS,
    rows: rows.map((r) => ({
      scenario: r.scenario,
      config: r.config,
      detail: r.detail,
      samplesPerSec: round(r.samplesPerSec, 1),
      ofBest: round(r.ofBest),
      spread: round(r.spread),
    })),
  }),
);
