#!/usr/bin/env node
// The README's two commands start here: `npm run demo` and `npm test`.
// Needs only Node 20 and npm: installs pnpm 12.4.2, the locked dependencies
// and (for tests) finds or installs Chromium, Firefox and WebKitGTK before doing the work.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall, ensureChromium, ensureFirefox } from './chromium.mjs';
import { ensureWebKit } from './webkit.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = '12.4.2';
const localPnpm = join(root, '.tools', 'node_modules', '.bin', 'pnpm');

function pnpmVersion(bin) {
  try {
    return execFileSync(bin, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

function ensurePnpm() {
  if (pnpmVersion('pnpm') === PNPM_VERSION) return 'pnpm';
  if (existsSync(localPnpm) && pnpmVersion(localPnpm) === PNPM_VERSION) return localPnpm;
  console.log(`[setup] installing pnpm ${PNPM_VERSION} with npm…`);
  const global = spawnSync('npm', ['install', '-g', `pnpm@${PNPM_VERSION}`], { stdio: 'inherit' });
  if (global.status === 0 && pnpmVersion('pnpm') === PNPM_VERSION) return 'pnpm';
  // No permission for a global install: keep a private copy in .tools/.
  const local = spawnSync(
    'npm',
    ['install', '--prefix', join(root, '.tools'), `pnpm@${PNPM_VERSION}`],
    {
      stdio: 'inherit',
    },
  );
  if (local.status === 0 && pnpmVersion(localPnpm) === PNPM_VERSION) return localPnpm;
  throw new Error(
    `could not install pnpm ${PNPM_VERSION}; install it with: npm i -g pnpm@${PNPM_VERSION}`,
  );
}

function run(bin, args, opts = {}) {
  const r = spawnSync(bin, args, { stdio: 'inherit', cwd: root, ...opts });
  return r.status ?? 1;
}

function install(pnpm) {
  if (run(pnpm, ['install', '--frozen-lockfile']) !== 0) {
    throw new Error('pnpm install --frozen-lockfile failed');
  }
}

/** Each check counts as one test in the final `N passed, N failed` line. */
function check(label, pnpm, args, tally, env) {
  console.log(`\n[check] ${label}`);
  const status = run(pnpm, args, env ? { env: { ...process.env, ...env } } : {});
  if (status === 0) tally.passed++;
  else {
    tally.failed++;
    tally.failures.push(label);
  }
}

/** Engines in the order their lines are printed; others follow by name. */
const ENGINE_ORDER = ['chromium', 'firefox', 'webkit'];

function vitest(pnpm, args, tally, env) {
  const report = join(root, '.vitest-report.json');
  const engineReport = join(root, '.vitest-engines.json');
  rmSync(report, { force: true });
  rmSync(engineReport, { force: true });
  const status = run(
    pnpm,
    [
      'exec',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      // Counts per engine (browser projects): tests/setup/engineReporter.ts.
      '--reporter=./tests/setup/engineReporter.ts',
      ...args,
    ],
    { env: { ...process.env, ...env, MEDFUSION_ENGINE_REPORT: engineReport } },
  );
  if (existsSync(engineReport)) {
    const engines = JSON.parse(readFileSync(engineReport, 'utf8'));
    for (const [engine, t] of Object.entries(engines)) {
      tally.engines[engine] ??= { passed: 0, failed: 0, skipped: 0 };
      const sum = tally.engines[engine];
      sum.passed += t.passed;
      sum.failed += t.failed;
      sum.skipped += t.skipped;
    }
  }
  if (!existsSync(report)) {
    tally.failed++;
    tally.failures.push(`vitest ${args.join(' ')} (exit ${status}, no report)`);
    return;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  tally.passed += r.numPassedTests;
  tally.failed += r.numFailedTests;
  tally.skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  // Suites that failed to load count as failures too.
  const brokenFiles = (r.testResults ?? []).filter(
    (f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0,
  );
  tally.failed += brokenFiles.length;
  for (const f of brokenFiles) tally.failures.push(`${f.name}: ${f.message ?? 'failed to run'}`);
  if (status !== 0 && r.numFailedTests === 0 && brokenFiles.length === 0) {
    tally.failed++;
    tally.failures.push(`vitest exited with ${status}`);
  }
}

function summary(tally) {
  if (tally.failures.length) console.log(`\nFailed: \n  ${tally.failures.join('\n  ')}`);
  // One line per engine (its browser projects' tests), then the total over everything.
  const rank = (e) => (ENGINE_ORDER.includes(e) ? ENGINE_ORDER.indexOf(e) : ENGINE_ORDER.length);
  const engines = Object.keys(tally.engines).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  if (engines.length) console.log('');
  for (const e of engines) {
    const t = tally.engines[e];
    console.log(`${e}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
  }
  const skipped = tally.skipped ? `, ${tally.skipped} skipped` : '';
  console.log(
    `${engines.length ? '' : '\n'}${tally.passed} passed, ${tally.failed} failed${skipped}`,
  );
  process.exit(tally.failed > 0 ? 1 : 0);
}

const command = process.argv[2];
const extra = process.argv.slice(3);
const pnpm = ensurePnpm();
install(pnpm);

if (command === 'demo') {
  // Generates the data (first run), builds the app and serves it with the data: see demo/scripts/serve.mjs.
  process.exit(run(pnpm, ['--filter', '@medfusion/demo', 'run', 'start', ...extra]));
} else if (command === 'test' || command === 'test:reliability') {
  const env = { CHROMIUM_PATH: ensureChromium() };
  // Firefox and WebKit too unless MEDFUSION_ENGINES narrows the run (tests/setup/engines.ts;
  // `npm run test:chromium` is MEDFUSION_ENGINES=chromium).
  const engines = (process.env.MEDFUSION_ENGINES || 'all').toLowerCase();
  if (/\b(all|firefox)\b/.test(engines)) env.FIREFOX_PATH = ensureFirefox();
  // MiniBrowser + Xvfb for the -webkit projects (tests/setup/webkitProvider.ts)
  if (/\b(all|webkit)\b/.test(engines)) ensureWebKit();
  if (!existsSync('/usr/sbin/nginx') && !process.env.MEDFUSION_NO_NGINX)
    aptInstall(['nginx-light']);
  const tally = { passed: 0, failed: 0, skipped: 0, failures: [], engines: {} };
  if (command === 'test') {
    check('biome (lint + format)', pnpm, ['exec', 'biome', 'ci', '.'], tally);
    check('typecheck (tsc --noEmit, every package)', pnpm, ['run', 'typecheck'], tally);
    check('build (tsc → dist with .d.ts)', pnpm, ['run', 'build'], tally);
    check(
      'docs: code blocks of README.md and docs/*.md compile',
      process.execPath,
      ['scripts/check-docs.mjs'],
      tally,
    );
    for (const p of ['core', 'web', 'node', 'cli']) {
      check(`publint packages/${p}`, pnpm, ['exec', 'publint', '--strict', `packages/${p}`], tally);
    }
    check(
      'API reference: every public symbol has a doc comment (API Extractor)',
      process.execPath,
      ['scripts/api-docs.mjs', '--check'],
      tally,
    );
    check(
      'attw: published types resolve for every entry point and subpath',
      process.execPath,
      ['scripts/check-packages.mjs'],
      tally,
    );
    vitest(pnpm, extra, tally, env);
  } else {
    // Node and browser scenarios (every engine); the reporter prints the summary table at the end.
    const projects = ['--project', 'reliability', '--project', 'reliability-web*'];
    const table = '--reporter=./tests/reliability/summaryReporter.ts';
    vitest(pnpm, [...projects, table, ...extra], tally, {
      ...env,
      MEDFUSION_RELIABILITY_TABLE: '1',
    });
  }
  summary(tally);
} else {
  console.error(`usage: node scripts/run.mjs demo|test|test:reliability`);
  process.exit(2);
}
