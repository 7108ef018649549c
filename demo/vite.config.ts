// The demo's Vite config: the workspace config (source condition, ES workers)
// plus a middleware that serves the synthetic data set as real files with an
// added, adjustable latency, in `vite` (dev) and `vite preview` (built) alike.
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Connect, mergeConfig, type Plugin } from 'vite';
import base from '../vite.config.ts';

const here = dirname(fileURLToPath(import.meta.url));

/** Folder served under `/data/`; MEDFUSION_DEMO_DATA overrides (the e2e test uses a small set). */
function dataDir(): string {
  return resolve(process.env.MEDFUSION_DEMO_DATA ?? join(here, '.data', 'synthetic'));
}

const DEFAULT_LATENCY_MS = 10;
const MAX_LATENCY_MS = 10_000;
const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.csv': 'text/csv; charset=utf-8',
  '.json': 'application/json',
  '.tar': 'application/x-tar',
};

/** One `bytes=a-b` / `bytes=a-` / `bytes=-n` range of a `size`-byte file, or 'bad' (→ 416). */
function parseRange(header: string, size: number): { start: number; end: number } | 'bad' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'bad';
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? 'bad' : { start, end };
}

/** Latency for one request: `?latency=` wins, then the `mf-latency` cookie, then 10 ms. */
function latencyOf(req: IncomingMessage, url: URL): number {
  const fromQuery = url.searchParams.get('latency');
  const fromCookie = /(?:^|;\s*)mf-latency=(\d+(?:\.\d+)?)/.exec(req.headers.cookie ?? '')?.[1];
  const raw = Number(fromQuery ?? fromCookie ?? DEFAULT_LATENCY_MS);
  return Number.isFinite(raw) ? Math.min(Math.max(raw, 0), MAX_LATENCY_MS) : DEFAULT_LATENCY_MS;
}

function serveData(): Connect.NextHandleFunction {
  return (req: IncomingMessage, res: ServerResponse, next: Connect.NextFunction) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith('/data/') || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    const root = dataDir();
    const file = normalize(join(root, decodeURIComponent(url.pathname.slice('/data/'.length))));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      res.end(`not found: ${url.pathname}`);
      return;
    }
    const delay = latencyOf(req, url);
    const timer = setTimeout(() => {
      const info = statSync(file);
      // A strong ETag, so range readers can pin a shard's version with If-Match.
      const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('ETag', etag);
      // No HTTP cache: every epoch pays the latency unless the pipeline caches.
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Added-Latency-Ms', String(delay));
      const ifMatch = req.headers['if-match'];
      if (ifMatch && ifMatch !== '*' && !ifMatch.split(/\s*,\s*/).includes(etag)) {
        res.statusCode = 412;
        res.end();
        return;
      }
      const rangeHeader = req.headers.range;
      const range = rangeHeader ? parseRange(rangeHeader, info.size) : undefined;
      if (range === 'bad') {
        res.statusCode = 416;
        res.setHeader('Content-Range', `bytes */${info.size}`);
        res.end();
        return;
      }
      if (range) {
        res.statusCode = 206;
        res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
      }
      res.setHeader('Content-Length', range ? range.end - range.start + 1 : info.size);
      if (req.method === 'HEAD') res.end();
      else createReadStream(file, range ?? {}).pipe(res);
    }, delay);
    req.on('close', () => clearTimeout(timer));
  };
}

/**
 * Serves `/data/manifest.csv`, `/data/images/*.png` and `/data/shards/*` with
 * added latency; single `Range` requests get 206 (the shards source reads
 * that way), every response a strong `ETag` that `If-Match` is checked against.
 */
export function demoData(): Plugin {
  return {
    name: 'medfusion-demo-data',
    configureServer(server) {
      server.middlewares.use(serveData());
    },
    configurePreviewServer(server) {
      server.middlewares.use(serveData());
    },
  };
}

/** Emits `shell.json`, every file of the build, so the page can cache its shell for offline use. */
export function shellList(): Plugin {
  return {
    name: 'medfusion-demo-shell-list',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((f) => !f.endsWith('.map'));
      this.emitFile({ type: 'asset', fileName: 'shell.json', source: JSON.stringify(files) });
    },
  };
}

/**
 * The Cornerstone DICOM codecs are Emscripten builds that `require('fs')` and `require('path')`
 * in a branch taken only under Node; in the browser they never touch them. Vite externalized
 * both with a warning per codec and build (~12 lines before the demo's URL): an empty module
 * stands in for them instead, in the browser build only.
 */
const nodeOnlyInCodecs = resolve(here, 'src', 'nodeBuiltinStub.ts');

export default mergeConfig(base, {
  root: here,
  plugins: [demoData(), shellList()],
  resolve: { alias: { fs: nodeOnlyInCodecs, path: nodeOnlyInCodecs } },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  build: {
    outDir: resolve(here, 'dist'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 4096,
    // Rolldown's report of slow plugin callbacks (the HTML and worker transforms on a busy
    // machine) is for whoever tunes the build, not for someone starting the demo.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  // The workers are bundled on their own: the same for them.
  worker: { rolldownOptions: { checks: { bundlerTimings: false } } },
});
