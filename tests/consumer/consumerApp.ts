// Helpers of the consumer tests: install an app of tests/consumer/apps from the
// packed tarballs with npm (as a user would: no workspace links), run its own
// tools (tsc, vite, webpack), serve it, and read what its page reports.
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';
import { launchChromium, ROOT } from '../e2e/demoServer.js';
import { freePort } from '../setup/freePort.js';

const APPS = join(dirname(fileURLToPath(import.meta.url)), 'apps');

/** What an installed app's page published on `document.body.dataset`, and what went wrong. */
export interface PageReport {
  /** `JSON.parse(dataset.result)`, when the page finished. */
  result: Record<string, unknown> | undefined;
  /** `dataset.error`, when the page failed. */
  error: string | undefined;
  /** Uncaught errors of the page and its workers, failed requests, HTTP errors. */
  pageErrors: string[];
  /** Script URLs of the Web Workers the page started. */
  workers: string[];
}

/** Run `command` in `cwd`; resolves with its output, rejects with it on a non-zero exit. */
export function run(cwd: string, command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code} in ${cwd}:\n${out}`));
    });
  });
}

/**
 * Copy `apps/<name>` into the consumer folder (outside the workspace), point its
 * `@medfusion/*` dependencies at the tarballs, add `extra` files, and
 * `npm install` it from the npm cache where it can. Returns the app's folder.
 * @param extra app-relative destination → source path (shared code, fixtures)
 */
export async function installApp(
  name: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const dir = join(inject('consumerDir'), name);
  await cp(join(APPS, name), dir, { recursive: true });
  for (const [to, from] of Object.entries(extra))
    await cp(from, join(dir, to), { recursive: true });
  const tarballs = inject('consumerTarballs');
  const manifest = join(dir, 'package.json');
  const text = (await readFile(manifest, 'utf8'))
    .replace('TARBALL_CORE', tarballs['@medfusion/core'] ?? 'missing')
    .replace('TARBALL_WEB', tarballs['@medfusion/web'] ?? 'missing')
    .replace('TARBALL_CLI', tarballs['@medfusion/cli'] ?? 'missing')
    .replace('TARBALL_NODE', tarballs['@medfusion/node'] ?? 'missing');
  await writeFile(manifest, text);
  await run(dir, 'npm', [
    'install',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
  ]);
  return dir;
}

/** The shared pipeline of the TF.js apps, copied into an app's `src/`. */
export const SHARED_PIPELINE: Record<string, string> = {
  'src/pipeline.js': join(APPS, 'shared', 'pipeline.js'),
  'src/loader.worker.js': join(APPS, 'shared', 'loader.worker.js'),
};

/** The CSV + PNG fixtures of the web tests, served by an app from `public/`. */
export const CSV_IMAGES: Record<string, string> = {
  'public/manifest.csv': join(ROOT, 'tests', 'web', 'fixtures', 'csv-images', 'manifest.csv'),
  'public/images': join(ROOT, 'tests', 'web', 'fixtures', 'csv-images', 'images'),
};

/** A server started by {@link serve}. */
export interface RunningServer {
  /** Its root URL. */
  url: string;
  /** Stop it (and wait until it has exited). */
  stop(): Promise<void>;
}

/**
 * Start a long-running command of the app (`vite preview`, `vite`) on a free
 * port (`{port}` in `args`) and wait until it answers HTTP.
 */
async function serve(dir: string, command: string, args: string[]): Promise<RunningServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    command,
    args.map((a) => a.replace('{port}', String(port))),
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const url = `http://127.0.0.1:${port}/`;
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}:\n${out}`);
    try {
      if ((await fetch(url)).ok) return { url, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${command} did not answer on ${url} within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Serve the app with its own Vite on a free port (`vite preview` of its build,
 * or the `vite` dev server), open it with {@link openPage}, stop the server.
 */
export async function openWithVite(dir: string, mode: 'preview' | 'dev'): Promise<PageReport> {
  const server = await serve(dir, 'node_modules/.bin/vite', [
    ...(mode === 'preview' ? ['preview'] : []),
    '--host',
    '127.0.0.1',
    '--port',
    '{port}',
    '--strictPort',
  ]);
  try {
    return await openPage(server.url);
  } finally {
    await server.stop();
  }
}

/** Open `url` in Chromium and wait (up to `timeoutMs`) for the page to publish its result or error. */
export async function openPage(url: string, timeoutMs = 90_000): Promise<PageReport> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    const workers: string[] = [];
    page.on('worker', (w) => workers.push(w.url()));
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    // Chromium asks every origin for a favicon; the apps have none.
    page.on('requestfailed', (r) => pageErrors.push(`request failed: ${r.url()}`));
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico'))
        pageErrors.push(`HTTP ${r.status()}: ${r.url()}`);
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().includes('404 (Not Found)'))
        pageErrors.push(`console: ${m.text()} (${m.location().url})`);
    });
    await page.goto(url);
    // A dev server may reload the page once (dependencies optimized); the wait survives it.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await page.waitForFunction(
          () => document.body?.dataset.result ?? document.body?.dataset.error,
          undefined,
          { timeout: Math.max(1, deadline - Date.now()) },
        );
        break;
      } catch (err) {
        if (Date.now() >= deadline || !/context was destroyed|navigat/i.test(String(err)))
          throw err;
      }
    }
    const data = await page.evaluate(() => ({ ...document.body.dataset }));
    return {
      result: data.result === undefined ? undefined : JSON.parse(data.result),
      error: data.error,
      pageErrors,
      workers,
    };
  } finally {
    await browser.close();
  }
}

/** What both TF.js apps must show: no error, the loss falling over 2 epochs, disk hits on the second. */
export function expectTrained(report: PageReport): void {
  if (process.env.MEDFUSION_CONSUMER_DEBUG) console.log(JSON.stringify(report));
  expect(report.error).toBeUndefined();
  expect(report.pageErrors).toEqual([]);
  const result = report.result as {
    losses: number[];
    diskHitsPerEpoch: number[];
    opfsEntries: string[];
    backend: string;
  };
  expect(result.losses).toHaveLength(2);
  for (const loss of result.losses) expect(Number.isFinite(loss)).toBe(true);
  expect(result.losses[1]).toBeLessThan(result.losses[0] ?? 0);
  // the first epoch fills the disk, the second reads it
  expect(result.diskHitsPerEpoch[1]).toBeGreaterThan(result.diskHitsPerEpoch[0] ?? 0);
  expect(result.opfsEntries.length).toBeGreaterThan(0); // the disk tier is OPFS
  // Every kind of worker started from its bundled URL: the app's loader
  // (poolSize 2), the package's own OPFS worker (not an in-thread fallback)
  // and the OPFS worker's flush thread (the first epoch's group commits).
  expect(report.workers).toHaveLength(4);
  expect(new Set(report.workers).size).toBe(3);
}

/**
 * `tsc --noEmit` in the app (its tsconfig: `strict`, `skipLibCheck: false`) and
 * the errors reported in the app's own files or in our packages. Errors inside
 * other libraries (TF.js's declarations do not pass `skipLibCheck: false`) are
 * not ours to judge.
 * @param project the app's tsconfig to use (`tsc -p`)
 */
export async function typeErrorsOfOurs(dir: string, project = '.'): Promise<string[]> {
  let output: string;
  try {
    output = await run(dir, 'node_modules/.bin/tsc', [
      '--noEmit',
      '-p',
      project,
      '--pretty',
      'false',
    ]);
  } catch (err) {
    output = String(err);
  }
  return output
    .split('\n')
    .filter((line) => /\(\d+,\d+\): error TS/.test(line))
    .filter(
      (line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/@medfusion/'),
    );
}
