// Helpers for the demo e2e test: a small data set, the demo started with the
// README's command (`node scripts/run.mjs demo`, what `npm run demo` runs) on
// 127.0.0.1 (a free port), and Debian's Chromium or Firefox ESR with a persistent profile.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, firefox } from 'playwright';
import { chromiumPath, firefoxPath } from '../../scripts/chromium.mjs';
import { freePort } from '../setup/freePort.js';

/** Repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where screenshots, the test's data and its browser profile go (git-ignored). */
export const ARTIFACTS = join(ROOT, '.artifacts');

/** Generate `count` samples (and their tar shards, 200 per shard) with the demo's own generator into `.artifacts/`. */
export function generateSmallDataset(count: number): string {
  const out = join(ARTIFACTS, `e2e-data-${count}`);
  mkdirSync(ARTIFACTS, { recursive: true });
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'demo', 'scripts', 'generate-data.mjs'),
      '--count',
      String(count),
      '--out',
      out,
      '--shard-size',
      '200',
    ],
    { stdio: 'inherit' },
  );
  return out;
}

/** The running demo: its URL, and how to stop it. */
export interface RunningDemo {
  /** Page URL, ending in `/`. */
  url: string;
  /** What the command printed up to and including the URL (stdout and stderr). */
  printed: string;
  /** Stop the command and everything it started. */
  stop(): Promise<void>;
}

/**
 * Start the demo the way the README says (`npm run demo` runs
 * `node scripts/run.mjs demo`), serving `dataDir` (with `extraEnv` added to the
 * environment), and wait for the URL it prints.
 */
export async function startDemo(
  dataDir: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<RunningDemo> {
  const port = await freePort();
  // vitest's NODE_ENV=test is not what a person's shell has
  const { NODE_ENV: _test, ...shell } = process.env;
  const env: NodeJS.ProcessEnv = { ...shell, ...extraEnv, MEDFUSION_DEMO_DATA: dataDir };
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'scripts', 'run.mjs'), 'demo', '--port', String(port)],
    { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((res) => child.once('exit', () => res()));
    process.kill(-child.pid, 'SIGTERM'); // the group this test started: pnpm, node, vite
    await exited;
  };
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`demo did not start in 120 s:\n${output}`)),
      120_000,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /\[demo\] open (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        res((m[1] as string).endsWith('/') ? (m[1] as string) : `${m[1]}/`);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`demo exited with ${code}:\n${output}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, printed: output, stop };
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** Launch Chromium the way every browser test here does (a fresh, throwaway profile). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: CHROMIUM_ARGS,
  });
}

/** Chromium with a persistent profile in `.artifacts/<name>` (emptied first: the first visit is cold). */
export function launchPersistent(name: string): Promise<BrowserContext> {
  const profile = join(ARTIFACTS, name);
  rmSync(profile, { recursive: true, force: true });
  return chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    viewport: { width: 1280, height: 800 },
    args: CHROMIUM_ARGS,
  });
}

/**
 * Debian's Firefox ESR (FIREFOX_PATH overrides) over WebDriver BiDi with a persistent profile in
 * `.artifacts/<name>` (emptied first), as vite.config.ts drives it for the *-firefox projects.
 */
export function launchPersistentFirefox(name: string): Promise<BrowserContext> {
  const profile = join(ARTIFACTS, name);
  rmSync(profile, { recursive: true, force: true });
  return firefox.launchPersistentContext(profile, {
    channel: 'moz-firefox',
    executablePath: firefoxPath(),
    viewport: { width: 1280, height: 800 },
  });
}
