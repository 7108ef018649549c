/**
 * A tiny HTTP sample server for the offline / disk-tier browser tests:
 * `GET /sample/<i>` answers 4,096 deterministic bytes for sample i (CORS
 * open); `GET /down/<i>` answers 503, as a failing network would.
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
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const m = /^\/(sample|down)\/(\d+)$/.exec(req.url ?? '');
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
