// A local HTTP server that behaves like a consumer link: every response
// starts after `latencyMs`, and all responses share one token bucket of
// `mbit` Mbit/s (bytes leave in 64 KiB chunks, first come first served).
// GET /s/<i> answers `size` deterministic bytes for sample i.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startThrottledServer}. */
export interface ThrottleOptions {
  /** Added latency before the first byte, ms. */
  latencyMs: number;
  /** Shared bandwidth, Mbit/s. */
  mbit: number;
  /** Bytes per sample. */
  size: number;
}

/** The bytes of sample `i` (the page checks a few). */
export function sampleBytes(i: number, size: number): Uint8Array {
  const b = new Uint8Array(size);
  let x = (i + 1) * 2654435761;
  for (let k = 0; k < size; k += 4) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    b[k] = x & 0xff;
    if (k + 1 < size) b[k + 1] = (x >>> 8) & 0xff;
    if (k + 2 < size) b[k + 2] = (x >>> 16) & 0xff;
    if (k + 3 < size) b[k + 3] = x >>> 24;
  }
  return b;
}

const CHUNK = 64 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Start on 127.0.0.1; resolves to the base URL, counters and a stop function. */
export async function startThrottledServer(
  opts: ThrottleOptions,
): Promise<{ url: string; served: () => number; close: () => Promise<void> }> {
  const bytesPerMs = (opts.mbit * 1e6) / 8 / 1000;
  let nextFree = 0; // virtual time (ms) when the link is free again
  let served = 0;
  const cache = new Map<number, Uint8Array>();
  const server: Server = createServer(async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const m = /^\/s\/(\d+)$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const i = Number(m[1]);
    let body = cache.get(i);
    if (!body) {
      body = sampleBytes(i, opts.size);
      if (cache.size < 4096) cache.set(i, body);
    }
    await sleep(opts.latencyMs);
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': body.length,
      'Cache-Control': 'no-store',
    });
    for (let at = 0; at < body.length; at += CHUNK) {
      const chunk = body.subarray(at, Math.min(body.length, at + CHUNK));
      const now = performance.now();
      const start = Math.max(now, nextFree);
      nextFree = start + chunk.length / bytesPerMs;
      await sleep(nextFree - now);
      if (res.destroyed) return;
      res.write(chunk);
    }
    served++;
    res.end();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
