// `node scripts/stress.mjs [options]` runs this (through tsx): the stress harness from the
// command line, its figures printed at the end; exits 1 when a run did not end done.
//   --engines chromium,firefox,webkit  --scenarios demo,plain  --runs 10  --stall-s 30
//   --hog 2 (cores stress-ng keeps busy; 0: none)  --mode hosted|nested  --samples 200
//   --timeout-s 180  --demo-dist <dir> (serve a demo built elsewhere, e.g. from an older commit)
//   --driver playwright|direct (Chromium and Firefox through Playwright, or started as a user does)

import { runStress, SCENARIOS, type Scenario, type StressOptions } from './stress.js';
import { ENGINES, type Engine } from './stressBrowsers.js';

function listOf<T extends string>(flag: string, raw: string, allowed: readonly T[]): T[] {
  const items = raw.split(',').filter(Boolean);
  for (const item of items) {
    if (!allowed.includes(item as T)) {
      throw new RangeError(`${flag}: '${item}' is not one of ${allowed.join(', ')}`);
    }
  }
  return items as T[];
}

function count(flag: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new RangeError(`${flag} must be an integer ≥ ${min}`);
  return n;
}

function parse(argv: string[]): StressOptions {
  const o: StressOptions = {
    engines: [...ENGINES],
    scenarios: [...SCENARIOS],
    runs: 10,
    stallMs: 30_000,
    runTimeoutMs: 180_000,
    hogCpus: 2,
    mode: 'hosted',
    samples: 200,
    driver: 'playwright',
    log: (line) => console.log(line),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    if (value === undefined) throw new RangeError(`${flag} needs a value (try --help)`);
    if (flag === '--engines') o.engines = listOf<Engine>(flag, value, ENGINES);
    else if (flag === '--scenarios') o.scenarios = listOf<Scenario>(flag, value, SCENARIOS);
    else if (flag === '--runs') o.runs = count(flag, value, 1);
    else if (flag === '--stall-s') o.stallMs = count(flag, value, 1) * 1000;
    else if (flag === '--timeout-s') o.runTimeoutMs = count(flag, value, 1) * 1000;
    else if (flag === '--hog') o.hogCpus = count(flag, value, 0);
    else if (flag === '--samples') o.samples = count(flag, value, 1);
    else if (flag === '--demo-dist') o.demoDist = value;
    else if (flag === '--driver') {
      if (value !== 'playwright' && value !== 'direct') {
        throw new RangeError('--driver: playwright or direct');
      }
      o.driver = value;
    } else if (flag === '--mode') {
      if (value !== 'hosted' && value !== 'nested' && value !== 'hang') {
        throw new RangeError('--mode: hosted, nested or hang');
      }
      o.mode = value;
    } else throw new RangeError(`unknown option ${flag}`);
  }
  return o;
}

if (process.argv.includes('--help')) {
  console.log(
    'usage: node scripts/stress.mjs [--engines chromium,firefox,webkit] [--scenarios demo,plain]\n' +
      '  [--runs 10] [--stall-s 30] [--timeout-s 180] [--hog 2] [--mode hosted|nested]\n' +
      '  [--samples 200] [--demo-dist <dir>] [--driver playwright|direct]',
  );
} else {
  const options = parse(process.argv.slice(2));
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  options.signal = stop.signal;
  const { results, table } = await runStress(options);
  console.log(`\n[stress] ${results.length} runs, ${options.hogCpus} cores hogged:`);
  for (const line of table) console.log(`  ${line}`);
  process.exitCode = results.every((r) => r.end === 'done') ? 0 : 1;
}
