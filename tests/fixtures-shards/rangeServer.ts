/**
 * A small HTTP server (Node) for the remote-shard tests and the shards bench.
 * Serves files from `root` with single-range support, strong ETags, If-Match
 * and CORS, under three path prefixes:
 *
 * - `/plain/<file>`: always well-behaved (plus `delayMs` per request).
 * - `/flaky/<run>/<file>`: fails `failRate` of requests, seeded per run
 *   (alternately a 503 and a dropped connection).
 * - `/changing/<run>/<n>/<file>`: after `n` requests of that run the object is
 *   replaced by a different version with a new ETag.
 * - `/stats/<run>`: `{ requests, maxInFlight }` for that run as JSON.
 *
 * Written independently of the library under test (no imports from it).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, normalize } from 'node:path';
import { listenLocal } from '../setup/listenLocal.js';

/** Options of {@link startRangeServer}. */
export interface RangeServerOptions {
  /** Directory whose files are served. */
  root: string;
  /** Share of failing requests under `/flaky/`. @default 0.2 */
  failRate?: number;
  /** Seed of the failure sequence. @default 42 */
  seed?: number;
  /** Latency added to every request, in ms. @default 0 */
  delayMs?: number;
}

/** A running server. */
export interface RangeServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  /** Total requests served so far (all runs). */
  requests(): number;
  /** Stop listening and drop open connections. */
  close(): Promise<void>;
}

interface RunState {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  rng: number;
}

const CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Range, If-Match, If-None-Match, Cache-Control',
  'Access-Control-Expose-Headers': 'ETag, Content-Range, Accept-Ranges, Content-Length',
  'Access-Control-Max-Age': '600',
};

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0 || 1;
}

function etagOf(data: Uint8Array, version: number): string {
  let h = 2166136261;
  for (let i = 0; i < data.length; i += 7) h = Math.imul(h ^ (data[i] as number), 16777619);
  return `"${(h >>> 0).toString(16)}-${data.length.toString(16)}-v${version}"`;
}

/** Start the server on 127.0.0.1 and a free port. */
export async function startRangeServer(options: RangeServerOptions): Promise<RangeServer> {
  const failRate = options.failRate ?? 0.2;
  const seed = options.seed ?? 42;
  const delayMs = options.delayMs ?? 0;
  const files = new Map<string, Uint8Array>();
  const runs = new Map<string, RunState>();
  let total = 0;

  const load = (name: string): Uint8Array | undefined => {
    const safe = normalize(name).replace(/^(\.\.[/\\])+/, '');
    let data = files.get(safe);
    if (!data) {
      try {
        data = new Uint8Array(readFileSync(join(options.root, safe)));
      } catch {
        return undefined;
      }
      files.set(safe, data);
    }
    return data;
  };
  const runOf = (id: string): RunState => {
    let r = runs.get(id);
    if (!r) {
      r = { requests: 0, inFlight: 0, maxInFlight: 0, rng: hashString(`${seed}:${id}`) };
      runs.set(id, r);
    }
    return r;
  };
  const nextRandom = (r: RunState): number => {
    let x = r.rng;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    r.rng = x >>> 0 || 1;
    return r.rng / 4294967296;
  };

  const serveFile = (
    req: IncomingMessage,
    res: ServerResponse,
    data: Uint8Array,
    etag: string,
  ): void => {
    const ifMatch = req.headers['if-match'];
    if (ifMatch && ifMatch !== '*' && !ifMatch.split(/\s*,\s*/).includes(etag)) {
      res.writeHead(412, { ...CORS, ETag: etag, 'Content-Length': '0' });
      res.end();
      return;
    }
    const base = { ...CORS, ETag: etag, 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' };
    const range = req.headers.range;
    const m = range ? /^bytes=(\d*)-(\d*)$/.exec(range) : null;
    if (!m) {
      res.writeHead(200, { ...base, 'Content-Length': String(data.length) });
      res.end(req.method === 'HEAD' ? undefined : data);
      return;
    }
    let start: number;
    let end: number;
    if (m[1] === '') {
      start = Math.max(0, data.length - Number(m[2]));
      end = data.length - 1;
    } else {
      start = Number(m[1]);
      end = m[2] === '' ? data.length - 1 : Math.min(Number(m[2]), data.length - 1);
    }
    if (start >= data.length || end < start) {
      res.writeHead(416, { ...base, 'Content-Range': `bytes */${data.length}` });
      res.end();
      return;
    }
    res.writeHead(206, {
      ...base,
      'Content-Range': `bytes ${start}-${end}/${data.length}`,
      'Content-Length': String(end - start + 1),
    });
    res.end(req.method === 'HEAD' ? undefined : data.subarray(start, end + 1));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, run: RunState | undefined): void => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] as string);
    const parts = path.split('/').filter(Boolean);
    const [mode] = parts;
    if (mode === 'stats' && parts[1]) {
      const r = runOf(parts[1]);
      const body = JSON.stringify({ requests: r.requests, maxInFlight: r.maxInFlight });
      res.writeHead(200, {
        ...CORS,
        'Content-Type': 'application/json',
        'Cache-Control': 'no-store',
      });
      res.end(body);
      return;
    }
    if (mode === 'plain') {
      const data = load(parts.slice(1).join('/'));
      if (!data) {
        notFound(res);
        return;
      }
      serveFile(req, res, data, etagOf(data, 1));
      return;
    }
    if (mode === 'flaky' && run) {
      const data = load(parts.slice(2).join('/'));
      if (!data) {
        notFound(res);
        return;
      }
      if (nextRandom(run) < failRate) {
        if (run.requests % 2 === 0) {
          res.writeHead(503, { ...CORS, 'Content-Length': '0' });
          res.end();
        } else {
          req.socket.destroy();
        }
        return;
      }
      serveFile(req, res, data, etagOf(data, 1));
      return;
    }
    if (mode === 'changing' && run) {
      const after = Number(parts[2]);
      const data = load(parts.slice(3).join('/'));
      if (!data) {
        notFound(res);
        return;
      }
      if (run.requests <= after) {
        serveFile(req, res, data, etagOf(data, 1));
      } else {
        const changed = data.slice();
        for (let i = 0; i < changed.length; i++) changed[i] = (changed[i] as number) ^ 0x5a;
        serveFile(req, res, changed, etagOf(data, 2));
      }
      return;
    }
    notFound(res);
  };

  const server: Server = createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    total++;
    const parts = (req.url ?? '/').split('/').filter(Boolean);
    const run =
      (parts[0] === 'flaky' || parts[0] === 'changing') && parts[1] ? runOf(parts[1]) : undefined;
    if (run) {
      run.requests++;
      run.inFlight++;
      run.maxInFlight = Math.max(run.maxInFlight, run.inFlight);
      res.on('close', () => {
        run.inFlight--;
      });
    }
    if (delayMs > 0) setTimeout(() => handle(req, res, run), delayMs);
    else handle(req, res, run);
  });
  server.keepAliveTimeout = 5000;
  return { ...(await listenLocal(server)), requests: () => total };
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { ...CORS, 'Content-Length': '0' });
  res.end();
}
