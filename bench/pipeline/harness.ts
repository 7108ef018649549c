// The driver side of the demo's pipeline page (bench/pipeline/): the Vite server with the demo's
// data middleware (demo/vite.config.ts: /data/ with added latency, Range requests), Debian's
// Chromium, the page booted (model warmed up) and the CPU meter exposed to it. Used by
// `pnpm bench pipeline` and by the cold-epoch row of `pnpm bench pack`.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright';
import { createServer, defaultClientConditions, type Plugin } from 'vite';
import { demoData } from '../../demo/vite.config.js';
import { chromiumLaunchOptions } from '../_chromium.js';
import { CpuMeter } from './cpu.js';
import type { CpuProfile } from './profile.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');

/** How to open the pipeline page. */
export interface PipelinePageOptions {
  /** Added latency of every /data/ response, ms (the demo's `mf-latency` cookie). */
  latency: number;
  /** TF.js backend asked of the page (`cpu`, `webgl`, `auto`). */
  backend: string;
  /** More Vite plugins (before the data middleware), e.g. a request log. @default [] */
  plugins?: Plugin[];
}

/** The open page and how to close everything. */
export interface PipelinePage {
  /** The booted page: `window.runRow` is there. */
  page: Page;
  /** The backend TF.js runs on. */
  backend: string;
  /** Start a CPU profile of the page's thread; the returned call stops it. */
  profile(): Promise<() => Promise<CpuProfile>>;
  /** Close the browser and the server. */
  close(): Promise<void>;
}

/** Serve bench/pipeline/ and the demo's data on 127.0.0.1, open it in Chromium, wait for boot. */
export async function openPipelinePage(opts: PipelinePageOptions): Promise<PipelinePage> {
  const server = await createServer({
    configFile: false,
    root: here,
    logLevel: 'warn',
    plugins: [...(opts.plugins ?? []), demoData()],
    resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
    worker: { format: 'es' },
    optimizeDeps: {
      entries: ['index.html', '../../demo/src/loader.worker.ts'],
      include: ['@tensorflow/tfjs', 'comlink', 'idb', '@medfusion/web > papaparse'],
    },
    cacheDir: resolve(repoRoot, 'node_modules/.vite-bench-pipeline'),
    server: { host: '127.0.0.1', port: 0, fs: { allow: [repoRoot] }, hmr: false, watch: null },
  });
  const closers: (() => Promise<void>)[] = [() => server.close()];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    await server.listen();
    const address = server.httpServer?.address();
    if (address === null || address === undefined || typeof address === 'string') {
      throw new Error('the Vite server has no TCP address');
    }
    const url = `http://127.0.0.1:${address.port}/`;
    const browserServer = await chromium.launchServer(chromiumLaunchOptions());
    closers.push(() => browserServer.close());
    const pid = browserServer.process().pid;
    if (pid === undefined) throw new Error('no browser process id');
    const browser = await chromium.connect(browserServer.wsEndpoint());
    closers.push(() => browser.close());
    const context = await browser.newContext();
    await context.addCookies([{ name: 'mf-latency', value: String(opts.latency), url }]);
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.text().startsWith('[bench]'))
        console.error(`  page: ${msg.text()}`);
    });
    page.on('pageerror', (err) => console.error(`  page error: ${err.message}`));
    const cpu = new CpuMeter(pid);
    await page.exposeFunction('benchCpu', () => cpu.mark());
    await page.goto(`${url}?backend=${opts.backend}`);
    const backend = await (
      await page.waitForFunction(() => window.benchReady, undefined, { timeout: 180_000 })
    ).jsonValue();
    const profile = async () => {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
      await cdp.send('Profiler.start');
      return async () => {
        const { profile: p } = await cdp.send('Profiler.stop');
        await cdp.detach();
        return p as CpuProfile;
      };
    };
    return { page, backend, profile, close };
  } catch (error) {
    await close();
    throw error;
  }
}
