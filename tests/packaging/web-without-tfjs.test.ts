// `@medfusion/web` without TF.js (issue 12 item 7): an app importing the main
// entry builds with every `@tensorflow/*` id unresolvable, its bundle holds no
// TF.js code, and it runs in Chromium (reads a CSV, loads a sample in a worker).
// The TF.js and WebGPU adapters live in `@medfusion/web/tfjs` and `/webgpu`.
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, defaultClientConditions, type Plugin } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../e2e/demoServer.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'app');

/** Makes the app's world one without TF.js: resolving any `@tensorflow/*` id fails the build. */
function withoutTfjs(): Plugin {
  return {
    name: 'medfusion-without-tfjs',
    enforce: 'pre',
    resolveId(id, importer) {
      if (id.startsWith('@tensorflow/'))
        throw new Error(`${id} is not installed in this app (imported by ${importer ?? '?'})`);
      return null;
    },
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.csv': 'text/csv',
};

/** Serves `dir` on 127.0.0.1 (module scripts and workers need http, not file://). */
async function serve(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = normalize(join(dir, path === '/' ? 'index.html' : decodeURIComponent(path)));
    if (!file.startsWith(dir + sep)) {
      res.statusCode = 403;
      res.end();
      return;
    }
    const stream = createReadStream(file);
    stream.on('error', () => {
      res.statusCode = 404;
      res.end();
    });
    stream.on('open', () => {
      res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
      stream.pipe(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

describe('@medfusion/web in an app without TF.js', () => {
  let outDir: string;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'medfusion-no-tfjs-'));
    await build({
      configFile: false,
      root: fixture,
      logLevel: 'warn',
      resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
      plugins: [withoutTfjs()],
      worker: { format: 'es', plugins: () => [withoutTfjs()] },
      build: { outDir, emptyOutDir: true, minify: false, reportCompressedSize: false },
    });
  });

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('bundles no TF.js code', async () => {
    const scripts = (await filesUnder(outDir)).filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThanOrEqual(2); // the page and its worker
    for (const f of scripts) {
      const code = await readFile(f, 'utf8');
      expect(code, f).not.toMatch(/@tensorflow|tfjs-core|tfjs-backend/);
    }
  });

  it('runs in Chromium: reads a CSV and loads a sample in a worker', async () => {
    const { server, url } = await serve(outDir);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      await page.goto(url);
      await page.waitForFunction(
        () => document.body.dataset.result ?? document.body.dataset.error,
        undefined,
        { timeout: 20_000 },
      );
      const { result, error } = await page.evaluate(() => ({ ...document.body.dataset }));
      expect(error).toBeUndefined();
      expect(pageErrors).toEqual([]);
      expect(JSON.parse(result ?? 'null')).toEqual({
        rows: 2,
        classes: 2,
        sample: { index: 3, data: [3, 3, 3, 3] },
        crossOriginIsolated: false,
      });
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
