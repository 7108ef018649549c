// The bench's "network": a plain node:http / node:http2 server that serves the generated PNGs
// from memory (pre-encoded bytes, keep-alive, no middleware stack) after a setTimeout latency
// that costs no CPU. It runs apart from the Vite dev server that serves the page's modules, so
// the data path measures the pipelines, not a dev server. CORS is open (simple GETs, no
// preflight) because the page and its workers live on the Vite origin.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createH1, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Which protocol the data server speaks. */
export type Transport = 'h1' | 'h2';

/** A running data server. */
export interface DataServer {
  /** Origins to fetch from (several for HTTP/1.1, to lift Chromium's 6-per-host cap). */
  origins: string[];
  /** Requests answered so far. */
  requests(): number;
  /** Server CPU time (user + system, ms) since the last call. */
  cpuMs(): number;
  close(): Promise<void>;
}

/** A throwaway self-signed certificate for 127.0.0.1 (HTTP/2 needs TLS in browsers). */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'medfusion-bench-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
      ].concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Serve `/data/<i>.png` (and `/` as an empty page) with `latencyMs` added per request.
 * `?lat=N` overrides the latency for one request (the probe uses it). HTTP/1.1 listens on
 * `ports` ports (distinct origins); HTTP/2 on one.
 */
export async function startDataServer(
  pngs: Uint8Array[],
  latencyMs: number,
  transport: Transport,
  ports = 1,
): Promise<DataServer> {
  let count = 0;
  const bodies = pngs.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength));
  const handle = (
    req: IncomingMessage | Http2ServerRequest,
    res: ServerResponse | Http2ServerResponse,
  ) => {
    const url = req.url ?? '/';
    if (url === '/' || url.startsWith('/?')) {
      res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
      res.end('<!doctype html><title>data</title>');
      return;
    }
    const m = /^\/data\/(\d+)\.png(?:\?lat=(\d+))?$/.exec(url);
    const body = m ? bodies[Number(m[1])] : undefined;
    const wait = m?.[2] !== undefined ? Number(m[2]) : latencyMs;
    const reply = () => {
      count++;
      if (!body) {
        res.writeHead(404, { 'access-control-allow-origin': '*' });
        res.end();
        return;
      }
      res.writeHead(200, {
        'content-type': 'image/png',
        'content-length': body.byteLength,
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
        'timing-allow-origin': '*',
      });
      res.end(body);
    };
    if (wait > 0) setTimeout(reply, wait);
    else reply();
  };
  /** What both node:http and node:http2 servers offer. */
  interface Listener {
    listen(port: number, host: string, done: () => void): unknown;
    close(done: () => void): unknown;
    address(): unknown;
  }
  const servers: Listener[] = [];
  const sessions = new Set<{ destroy(): void }>();
  if (transport === 'h2') {
    const s = createSecureServer({ ...selfSignedCert(), allowHTTP1: true }, handle);
    s.on('session', (session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    servers.push(s);
  } else {
    for (let i = 0; i < ports; i++) {
      const s = createH1({ keepAlive: true, keepAliveTimeout: 60_000 }, handle);
      servers.push(s);
    }
  }
  const origins: string[] = [];
  for (const s of servers) {
    await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
    const { port } = s.address() as AddressInfo;
    origins.push(`${transport === 'h2' ? 'https' : 'http'}://127.0.0.1:${port}`);
  }
  let last = process.cpuUsage();
  return {
    origins,
    requests: () => count,
    cpuMs: () => {
      const d = process.cpuUsage(last);
      last = process.cpuUsage();
      return (d.user + d.system) / 1000;
    },
    close: async () => {
      for (const session of sessions) session.destroy();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((ok) => {
              (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
              s.close(() => ok());
            }),
        ),
      );
    },
  };
}
