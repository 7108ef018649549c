// `pnpm bench pipeline-decode [--count N] [--concurrency C]`: where one cold load of the demo's
// pipeline spends CPU. One Web Worker (as the demo's decode workers) runs, over the first N demo
// PNGs (64 × 64 grey, fetched once beforehand, served without added latency): canvas =
// ImageDecoder on a Blob (createImageBitmap + OffscreenCanvas), js = ImageDecoder on the bytes
// (fast-png), fetch = the HTTP request alone, get = CsvImageDataset.get (request + decode);
// each 1 and C at once. Per method: wall ms per image and Chromium CPU ms per image by process
// type and thread (from /proc). Last line: one JSON object.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { createServer, defaultClientConditions } from 'vite';
import { demoData } from '../demo/vite.config.js';
import { chromiumLaunchOptions } from './_chromium.js';
import type { Method } from './pipeline/decode/probe.worker.js';

const TICK = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const rd = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};
function tree(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const n of readdirSync('/proc')) {
    const pid = Number(n);
    if (!Number.isInteger(pid)) continue;
    const s = rd(`/proc/${pid}/stat`);
    if (!s) continue;
    const pp = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
    kids.set(pp, [...(kids.get(pp) ?? []), pid]);
  }
  const out: number[] = [];
  const st = [root];
  while (st.length) {
    const p = st.pop() as number;
    out.push(p);
    st.push(...(kids.get(p) ?? []));
  }
  return out;
}
function sample(root: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const pid of tree(root)) {
    const type =
      /--type=([\w-]+)/.exec(rd(`/proc/${pid}/cmdline`).replace(/\0/g, ' '))?.[1] ?? 'browser';
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {}
    for (const tid of tids) {
      const s = rd(`/proc/${pid}/task/${tid}/stat`);
      if (!s) continue;
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const comm = rd(`/proc/${pid}/task/${tid}/comm`).trim().replace(/\d+$/, '');
      const k = `${type}:${tid === String(pid) ? 'main' : comm}`;
      m.set(k, (m.get(k) ?? 0) + (Number(f[11]) + Number(f[12])) * TICK);
    }
  }
  return m;
}
const here = resolve(dirname(fileURLToPath(import.meta.url)), 'pipeline/decode');
const repoRoot = resolve(here, '../../..');
const argOf = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const server = await createServer({
  configFile: false,
  root: here,
  logLevel: 'warn',
  plugins: [demoData()],
  resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
  worker: { format: 'es' },
  // every dependency bundled up front: a late discovery reloads the page mid-run
  optimizeDeps: {
    entries: ['index.html', 'probe.worker.ts'],
    include: ['comlink', 'idb', 'fast-png', '@medfusion/web > papaparse'],
  },
  cacheDir: resolve(repoRoot, 'node_modules/.vite-bench-decode'),
  server: { host: '127.0.0.1', port: 0, fs: { allow: [repoRoot] }, hmr: false, watch: null },
});
await server.listen();
// never hold the bench lock for long: give up after 3 minutes
setTimeout(() => {
  console.error('pipeline-decode: timed out');
  process.exit(1);
}, 180_000).unref();
const a = server.httpServer?.address();
const url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/`;
const bs = await chromium.launchServer(chromiumLaunchOptions());
const root = bs.process().pid as number;
const browser = await chromium.connect(bs.wsEndpoint());
const page = await browser.newPage();
await page.goto(url);
await page.waitForFunction(() => typeof window.probe === 'function');
const N = argOf('count', 500);
const C = argOf('concurrency', 16);
const rows: Record<string, unknown>[] = [];
await page.evaluate((n) => window.probe({ fetch: n }), N);
for (const method of ['canvas', 'js', 'fetch', 'get'] as Method[]) {
  for (const concurrency of [1, C]) {
    const before = sample(root);
    const wall = await page.evaluate((m) => window.probe(m), { method, concurrency });
    const after = sample(root);
    const per: string[] = [];
    const threads: Record<string, number> = {};
    let total = 0;
    for (const [k, v] of after) {
      const d = (v - (before.get(k) ?? 0)) / N;
      total += d;
      if (d >= 0.02) {
        per.push(`${k} ${d.toFixed(2)}`);
        threads[k] = Math.round(d * 100) / 100;
      }
    }
    console.error(
      `${method} x${concurrency}: wall ${wall.toFixed(2)} ms/img, cpu ${total.toFixed(2)} ms/img [${per.join(', ')}]`,
    );
    rows.push({ method, concurrency, wallMs: wall, cpuMs: total, threads });
  }
}
await browser.close();
await bs.close();
await server.close();
console.log(JSON.stringify({ bench: 'pipeline-decode', images: N, rows }));
