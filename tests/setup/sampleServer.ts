/**
 * A tiny HTTP sample server for the offline / disk-tier and hostile-input browser
 * tests: `GET /sample/<i>` answers 4,096 deterministic bytes for sample i (CORS
 * open); `GET /down/<i>` answers 503, as a failing network would;
 * `GET /body/<base64url>` answers the decoded bytes (a manifest made by a test);
 * `GET /seen` answers the JSON list of `{ path, authorization }` of every request
 * so far (a test checks which requests carried credentials), `DELETE /seen` clears it.
 * `PUT /files/<name>` keeps the body in memory and `GET /files/<name>` serves it with
 * `Range` (206), `ETag` and `Content-Length` (a shard or sidecar made by a test).
 * `GET /wds/<tag>/manifest-<n>.json` answers a WebDataset manifest of n shards
 * `shard-0000000.tar`, … (with `"samples": k` each when asked `?samples=k`); every other
 * `/wds/<tag>/…` path is a 404 (missing shards; the tag tells one test's requests apart).
 *
 * Misbehaving servers (hostile-net tests): `GET /h/<mode>/<file>` serves one of the
 * files of {@link hostileFiles} (single-range support, strong ETag, CORS headers exposed)
 * the way `<mode>` says: `ok` (well-behaved), `stall-headers` (never answers),
 * `stall-body` (headers, then no body), `stall-mid` (headers and half the body, then
 * nothing), `no-range` (ignores Range: 200 with the whole file), `to-end` (answers a range
 * with everything from its start to the file's end, as Vite's static server, sirv, does for
 * `bytes=N-0`), `spa` (a single-page-app fallback: 200 with an HTML page for every path). `GET /h-stats` answers
 * `{ [path]: bytesWritten }` of the finished `/h/` responses; `DELETE /h-stats` clears it.
 * `GET /h-stalls` answers `{ [path]: count }` of the `/h/stall-*` responses that reached their
 * stall (request read, headers flushed, half the body written): a test of a timeout on an
 * injected clock moves it once the server is there. A query (`?case-7`) is ignored in serving
 * and keeps a test's paths apart.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { listenLocal } from './listenLocal.js';

/** Bytes of sample `i` (the tests recompute them to compare). */
export function sampleBytes(i: number, size = 4096): Uint8Array {
  const b = new Uint8Array(size);
  for (let k = 0; k < size; k++) b[k] = (i * 131 + k * 7) & 0xff;
  return b;
}

/** A manifest of `n` shards, each declaring `samples` when given. */
function shardManifest(n: number, samples: string | undefined): string {
  const tail = samples === undefined ? '}' : `,"samples":${Number(samples)}}`;
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`{"url":"shard-${String(i).padStart(7, '0')}.tar"${tail}`);
  return `{"shards":[${parts.join(',')}]}`;
}

/** `PUT` stores a file, `GET` serves it, honouring a single `Range: bytes=a-b`. */
function serveFile(
  req: IncomingMessage,
  res: ServerResponse,
  files: Map<string, Buffer>,
  name: string,
): void {
  if (req.method === 'PUT') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      files.set(name, Buffer.concat(chunks));
      res.writeHead(204).end();
    });
    return;
  }
  const body = files.get(name);
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  res.setHeader('Access-Control-Expose-Headers', 'ETag, Content-Range, Content-Length');
  const etag = `"${body.length}-${body[body.length >> 1] ?? 0}"`;
  const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (!range) {
    res.writeHead(200, { ETag: etag, 'Content-Length': body.length }).end(body);
    return;
  }
  const start = Number(range[1]);
  const end = Math.min(Number(range[2]), body.length - 1);
  if (start >= body.length) {
    res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end();
    return;
  }
  res
    .writeHead(206, {
      ETag: etag,
      'Content-Range': `bytes ${start}-${end}/${body.length}`,
      'Content-Length': end - start + 1,
    })
    .end(body.subarray(start, end + 1));
}

/** A tar header for a regular file (ustar, checksum filled in). */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** Samples in the hostile shard: member `s<i>.bin` holds `sampleBytes(i)`. */
export const HOSTILE_SHARD_SAMPLES = 8;

/**
 * The files behind `/h/<mode>/`: `shard.tar` (8 samples of 4,096 bytes, `s<i>.bin`), its
 * sidecar `shard.tar.idx.json`, `manifest.json` naming it, `big.bin` (64 MiB of zeros) and
 * `table.parquet` (one INT32 column `label` = row number, 16 rows in row groups of 4).
 */
export function hostileFiles(): Map<string, Buffer | { size: number }> {
  const parts: Buffer[] = [];
  const entries: [string, number, number][] = [];
  let offset = 0;
  for (let i = 0; i < HOSTILE_SHARD_SAMPLES; i++) {
    const name = `s${i}.bin`;
    const data = Buffer.from(sampleBytes(i));
    parts.push(tarHeader(name, data.length), data);
    entries.push([name, offset + 512, data.length]);
    offset += 512 + data.length;
  }
  parts.push(Buffer.alloc(1024));
  const index = { format: 'medfusion-tar-index', version: 1, entries };
  return new Map<string, Buffer | { size: number }>([
    ['shard.tar', Buffer.concat(parts)],
    ['shard.tar.idx.json', Buffer.from(JSON.stringify(index))],
    [
      'manifest.json',
      Buffer.from(
        JSON.stringify({ shards: [{ url: 'shard.tar', samples: HOSTILE_SHARD_SAMPLES }] }),
      ),
    ],
    ['big.bin', { size: 64 << 20 }],
    [
      'table.parquet',
      Buffer.from(
        parquetWriteBuffer({
          columnData: [
            { name: 'label', data: Array.from({ length: 16 }, (_, i) => i), type: 'INT32' },
          ],
          rowGroupSize: 4,
        }),
      ),
    ],
  ]);
}

/** Write `size` bytes of zeros (generated, never held whole), respecting backpressure. */
function writeGenerated(res: ServerResponse, size: number): void {
  const chunk = Buffer.alloc(64 << 10);
  let left = size;
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      left -= n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

/** Serve `/h/<mode>/<file>` (see the file comment). */
function serveHostile(
  req: IncomingMessage,
  res: ServerResponse,
  mode: string,
  name: string,
  files: Map<string, Buffer | { size: number }>,
  stalled: () => void,
): void {
  res.setHeader(
    'Access-Control-Expose-Headers',
    'ETag, Content-Range, Content-Length, Accept-Ranges',
  );
  if (mode === 'spa') {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(
      '<!doctype html><html><head><title>App</title></head><body><div id="app"></div></body></html>',
    );
    return;
  }
  const file = files.get(name);
  if (!file) {
    res.writeHead(404).end();
    return;
  }
  if (mode === 'stall-headers') {
    stalled();
    return; // never answers; the client gives up
  }
  const size = Buffer.isBuffer(file) ? file.length : file.size;
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  const ranged = m !== null && mode !== 'no-range';
  const start = ranged ? Number(m[1]) : 0;
  const end = ranged && mode !== 'to-end' ? Math.min(Number(m[2]) + 1, size) : size;
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/octet-stream',
    'Content-Length': end - start,
    ETag: `"${name}-${size}"`,
    ...(mode === 'no-range' ? {} : { 'Accept-Ranges': 'bytes' }),
    ...(ranged ? { 'Content-Range': `bytes ${start}-${end - 1}/${size}` } : {}),
  };
  res.writeHead(ranged ? 206 : 200, headers);
  if (mode === 'stall-body') {
    res.flushHeaders();
    res.write('', stalled); // called once the headers are out
    return;
  }
  if (!Buffer.isBuffer(file)) {
    writeGenerated(res, end - start);
    return;
  }
  const body = file.subarray(start, end);
  if (mode === 'stall-mid') {
    res.write(body.subarray(0, Math.max(1, body.length >> 1)), stalled);
    return;
  }
  res.end(body);
}

/** Start the server on 127.0.0.1; resolves to its base URL and a stop function. */
export async function startSampleServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const seen: { path: string; authorization: string | null }[] = [];
  const uploads = new Map<string, Buffer>();
  let manifest = { key: '', text: '' };
  const files = hostileFiles();
  const written: Record<string, number> = {};
  const stalls: Record<string, number> = {};
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const path = req.url ?? '';
    if (req.method === 'OPTIONS') {
      res.setHeader(
        'Access-Control-Allow-Headers',
        'Authorization, Range, If-Match, Content-Type, Cache-Control',
      );
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, DELETE, PUT');
      res.writeHead(204).end();
      return;
    }
    if (path === '/seen') {
      if (req.method === 'DELETE') seen.length = 0;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(seen));
      return;
    }
    if (path === '/h-stats') {
      if (req.method === 'DELETE') for (const k of Object.keys(written)) delete written[k];
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(written));
      return;
    }
    if (path === '/h-stalls') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(stalls));
      return;
    }
    seen.push({ path, authorization: req.headers.authorization ?? null });
    const file = /^\/files\/([\w.-]+)$/.exec(path);
    if (file) {
      serveFile(req, res, uploads, file[1] as string);
      return;
    }
    const wds = /^\/wds\/[\w-]+\/manifest-(\d+)\.json(?:\?samples=(\d+))?$/.exec(path);
    if (wds) {
      const key = `${wds[1]}/${wds[2]}`;
      if (manifest.key !== key) manifest = { key, text: shardManifest(Number(wds[1]), wds[2]) };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(manifest.text);
      return;
    }
    const hostile = /^\/h\/([a-z-]+)\/([^?]+)(?:\?.*)?$/.exec(path);
    if (hostile) {
      const socket = req.socket;
      const before = socket.bytesWritten;
      res.on('close', () => {
        written[path] = (written[path] ?? 0) + socket.bytesWritten - before;
      });
      serveHostile(req, res, hostile[1] as string, hostile[2] as string, files, () => {
        stalls[path] = (stalls[path] ?? 0) + 1;
      });
      return;
    }
    const echo = /^\/body\/([A-Za-z0-9_-]+)$/.exec(path);
    if (echo) {
      res.writeHead(200).end(Buffer.from(echo[1] as string, 'base64url'));
      return;
    }
    const m = /^\/(sample|down)\/(\d+)$/.exec(path);
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    if (m[1] === 'down') {
      res.writeHead(503).end('network down');
      return;
    }
    const body = sampleBytes(Number(m[2]));
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': body.length,
    });
    res.end(body);
  });
  return listenLocal(server);
}
