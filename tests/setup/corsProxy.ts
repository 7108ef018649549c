/**
 * A reverse proxy (Node) that adds CORS headers in front of a server that has
 * none (Orthanc), as a hospital's gateway would: the browser tests run on
 * Vite's origin and reach Orthanc through it. Counts requests per path prefix
 * so tests can assert that an epoch read nothing from the server.
 */
import { createServer } from 'node:http';
import { forwardRequest } from '../../scripts/orthanc.mjs';
import { listenLocal } from './listenLocal.js';

/** A running proxy. */
export interface CorsProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Requests forwarded so far (preflights not counted). */
  requests(): number;
  close(): Promise<void>;
}

/** Proxy every request to `target` (`http://127.0.0.1:PORT`), adding CORS; `GET /__requests` answers `{ requests, bearer }` (bearer: requests with a Bearer token). */
export async function startCorsProxy(target: string): Promise<CorsProxy> {
  let count = 0;
  let bearer = 0;
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Type, Content-Length, ETag');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Accept, Range, If-Match');
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD');
      res.setHeader('Access-Control-Max-Age', '600');
      res.writeHead(204).end();
      return;
    }
    if (req.url === '/__requests') {
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ requests: count, bearer }));
      return;
    }
    count++;
    if (/^Bearer /.test(req.headers.authorization ?? '')) bearer++;
    forwardRequest(req, res, target);
  });
  return { ...(await listenLocal(server)), requests: () => count };
}
