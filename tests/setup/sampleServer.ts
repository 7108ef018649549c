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
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** Start the server on 127.0.0.1; resolves to its base URL and a stop function. */
export async function startSampleServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const seen: { path: string; authorization: string | null }[] = [];
  const files = new Map<string, Buffer>();
  let manifest = { key: '', text: '' };
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const path = req.url ?? '';
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Range, If-Match, Content-Type');
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, DELETE, PUT');
      res.writeHead(204).end();
      return;
    }
    if (path === '/seen') {
      if (req.method === 'DELETE') seen.length = 0;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(seen));
      return;
    }
    seen.push({ path, authorization: req.headers.authorization ?? null });
    const file = /^\/files\/([\w.-]+)$/.exec(path);
    if (file) {
      serveFile(req, res, files, file[1] as string);
      return;
    }
    const wds = /^\/wds\/[\w-]+\/manifest-(\d+)\.json(?:\?samples=(\d+))?$/.exec(path);
    if (wds) {
      const key = `${wds[1]}/${wds[2]}`;
      if (manifest.key !== key) manifest = { key, text: shardManifest(Number(wds[1]), wds[2]) };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(manifest.text);
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
