// The page side of the browser benchmarks: serve bench/<name>/ with Vite, open it in
// Chromium, call the function its main.ts puts on `window`.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConsoleMessage, Page } from 'playwright';
import { build, createServer, defaultClientConditions, preview } from 'vite';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');

/** A page server on 127.0.0.1. */
export interface BenchPageServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  close(): Promise<void>;
}

function urlOf(
  address: ReturnType<import('node:net').Server['address']> | undefined,
  what: string,
) {
  if (address === null || address === undefined || typeof address === 'string') {
    throw new Error(`the ${what} server has no TCP address`);
  }
  return `http://127.0.0.1:${address.port}/`;
}

/**
 * Bundle bench/`name`/ into `outDir` once (no dev server: nothing can reload the
 * page mid-run), then serve the bundle with Vite's preview server.
 */
export async function previewBenchPage(name: string, outDir: string): Promise<BenchPageServer> {
  const root = resolve(benchDir, name);
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
    worker: { format: 'es' },
    build: { outDir, emptyOutDir: true, minify: false },
  });
  const server = await preview({
    configFile: false,
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0 },
  });
  return { url: urlOf(server.httpServer.address(), 'preview'), close: () => server.close() };
}

/**
 * Serve bench/`name`/ from Vite's dev server (dependencies `include`d and
 * prebundled from `entries`, cache in node_modules/.vite-bench-`name`), with no
 * watcher and no HMR: edits elsewhere in the tree must not reload the page mid-run.
 */
export async function serveBenchPage(
  name: string,
  optimizeDeps: { entries: string[]; include: string[] },
): Promise<BenchPageServer> {
  const server = await createServer({
    configFile: false,
    root: resolve(benchDir, name),
    logLevel: 'warn',
    resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
    worker: { format: 'es' },
    optimizeDeps,
    cacheDir: resolve(repoRoot, `node_modules/.vite-bench-${name}`),
    server: { host: '127.0.0.1', port: 0, fs: { allow: [repoRoot] }, hmr: false, watch: null },
  });
  await server.listen();
  return { url: urlOf(server.httpServer?.address(), 'Vite'), close: () => server.close() };
}

/**
 * Open `url` in a new page of `browser` (a Browser or a BrowserContext), log its
 * errors (and the console messages `onConsole` is given), and wait until its
 * main.ts has put `fn` on `window`.
 */
export async function openBenchPage(
  browser: { newPage(): Promise<Page> },
  url: string,
  fn: string,
  onConsole?: (msg: ConsoleMessage) => void,
): Promise<Page> {
  const page = await browser.newPage();
  if (onConsole) page.on('console', onConsole);
  page.on('pageerror', (err) => console.error(`  page error: ${err.message}`));
  await page.goto(url);
  await page.waitForFunction((f) => f in window, fn, { timeout: 120_000 });
  return page;
}

/** Call `window[fn](cfg)` in `page` and return its result. */
export function callBenchPage<C, R>(page: Page, fn: string, cfg: C): Promise<R> {
  return page.evaluate(
    ([f, c]) => (window as unknown as Record<string, (c: unknown) => Promise<unknown>>)[f]?.(c),
    [fn, cfg] as const,
  ) as Promise<R>;
}
