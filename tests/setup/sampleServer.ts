/**
 * A tiny HTTP sample server for the offline / disk-tier and hostile-input browser
 * tests: `GET /sample/<i>` answers 4,096 deterministic bytes for sample i (CORS
 * open); `GET /down/<i>` answers 503, as a failing network would;
 * `GET /body/<base64url>` answers the decoded bytes (a manifest made by a test);
 * `GET /seen` answers the JSON list of `{ path, authorization }` of every request
 * so far (a test checks which requests carried credentials), `DELETE /seen` clears it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Bytes of sample `i` (the tests recompute them to compare). */
export function sampleBytes(i: number, size = 4096): Uint8Array {
  const b = new Uint8Array(size);
  for (let k = 0; k < size; k++) b[k] = (i * 131 + k * 7) & 0xff;
  return b;
}

/** Start the server on 127.0.0.1; resolves to its base URL and a stop function. */
export async function startSampleServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const seen: { path: string; authorization: string | null }[] = [];
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const path = req.url ?? '';
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Range, If-Match');
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, DELETE');
      res.writeHead(204).end();
      return;
    }
    if (path === '/seen') {
      if (req.method === 'DELETE') seen.length = 0;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(seen));
      return;
    }
    seen.push({ path, authorization: req.headers.authorization ?? null });
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
