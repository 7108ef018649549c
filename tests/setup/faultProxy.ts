/**
 * A reverse proxy (Node) that injects network and PACS faults in front of
 * Orthanc or the DICOM file server, for the fault tests of `DicomSource` and
 * `DicomWebSource`. It adds the CORS headers docs/dicom.md tells a PACS to
 * send (and does not expose `Content-Encoding`). The fault is chosen by the URL:
 * `<proxy>/<key>/<fault>/<path>` forwards `<path>` to the target; the fault
 * applies to the fault-prone requests (WADO-RS frames, `.dcm` files), other
 * requests go through untouched. `key` names the scenario: its counters.
 *
 * - `none`: no fault.
 * - `reset-N`: the first N fault-prone requests get their connection destroyed, unanswered.
 * - `503-N`: the first N fault-prone requests are answered 503.
 * - `truncate-N` / `truncate-all`: the body breaks off after half (Content-Length announced).
 * - `cut`: a complete answer without the multipart closing boundary.
 * - `corrupt`: the JPEG-LS codestream's frame header is zeroed (no codec can decode it).
 * - `stall`: fault-prone requests are accepted, never answered; `stallall`: every request.
 * - `frames-N`: WADO-RS metadata answers (asked uncompressed) claim NumberOfFrames N for
 *   every instance; frame requests go through untouched.
 * - `extra-part`: a multipart frames answer gets one part more than asked (its last part twice).
 *
 * `GET /__stats/<key>` answers `{ requests, faultProne, gzipped }`: requests of
 * the key, its fault-prone ones, and answers the target sent compressed.
 * Written independently of the library under test (no imports from it).
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { type LocalServer, listenLocal } from './listenLocal.js';

interface KeyStats {
  requests: number;
  faultProne: number;
  gzipped: number;
}

const CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Content-Range, Accept-Ranges, Content-Length',
};

/** The upstream answer, whole (asked without compression, so it can be edited). */
function fetchWhole(
  target: string,
  path: string,
  headers: IncomingHttpHeaders,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const to = new URL(target);
  const { host: _h, authorization: _a, 'accept-encoding': _e, 'if-match': _m, ...rest } = headers;
  return new Promise((resolve, reject) => {
    const up = request({ host: to.hostname, port: to.port, path, headers: rest }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 502,
          headers: res.headers,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    up.on('error', reject);
    up.end();
  });
}

/** Forward as is (compression included), counting compressed answers. */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  path: string,
  stats: KeyStats,
): void {
  const to = new URL(target);
  const { host: _h, authorization: _a, ...headers } = req.headers;
  const up = request(
    { host: to.hostname, port: to.port, path, method: req.method, headers },
    (answer) => {
      if (answer.headers['content-encoding']) stats.gzipped++;
      const headers = Object.fromEntries(
        Object.entries(answer.headers).filter(([name]) => !name.startsWith('access-control-')),
      );
      res.writeHead(answer.statusCode ?? 502, { ...headers, ...CORS });
      answer.pipe(res);
    },
  );
  up.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, CORS);
    res.end(String(err));
  });
  req.pipe(up);
}

function sendEdited(
  res: ServerResponse,
  up: { status: number; headers: IncomingHttpHeaders },
  body: Buffer,
): void {
  const type = up.headers['content-type'];
  res.writeHead(up.status, {
    ...CORS,
    ...(type ? { 'Content-Type': type } : {}),
    'Content-Length': body.length,
  });
  res.end(body);
}

/** Zero the frame header (SOF) of the first JPEG-LS codestream in `body`. */
function corruptJpegLs(body: Buffer): Buffer {
  const out = Buffer.from(body);
  const at = out.indexOf(Buffer.from([0xff, 0xd8, 0xff, 0xf7]));
  if (at >= 0) out.fill(0, at + 2, at + 2 + 16);
  return out;
}

/** The body without its multipart closing boundary (`--<boundary>--` and what follows). */
function cutClosingBoundary(body: Buffer, contentType: string): Buffer {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return body;
  const at = body.lastIndexOf(Buffer.from(`--${boundary}--`));
  return at < 0 ? body : body.subarray(0, at);
}

/** The multipart body with its last part sent twice (one part more than the frames asked for). */
function addExtraPart(body: Buffer, contentType: string): Buffer {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return body;
  const closing = body.lastIndexOf(Buffer.from(`--${boundary}--`));
  const last = closing < 1 ? -1 : body.lastIndexOf(Buffer.from(`--${boundary}`), closing - 1);
  if (last < 0) return body;
  return Buffer.concat([
    body.subarray(0, closing),
    body.subarray(last, closing),
    body.subarray(closing),
  ]);
}

/** A DICOM JSON metadata answer with NumberOfFrames (0028,0008) set to `frames` in every instance. */
function withNumberOfFrames(body: Buffer, frames: number): Buffer {
  const items = JSON.parse(body.toString('utf8')) as Record<string, unknown>[];
  for (const item of items) item['00280008'] = { vr: 'IS', Value: [frames] };
  return Buffer.from(JSON.stringify(items));
}

/** Start a fault proxy in front of `target` (`http://127.0.0.1:PORT`). */
export async function startFaultProxy(target: string): Promise<LocalServer> {
  const keys = new Map<string, KeyStats>();
  const statsOf = (key: string): KeyStats => {
    let s = keys.get(key);
    if (!s) {
      s = { requests: 0, faultProne: 0, gzipped: 0 };
      keys.set(key, s);
    }
    return s;
  };
  const server = createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...CORS,
        'Access-Control-Allow-Headers': 'Authorization, Accept, Range, If-Match',
        'Access-Control-Allow-Methods': 'GET, HEAD',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    const url = req.url ?? '/';
    const statsPath = /^\/__stats\/([^/]+)$/.exec(url);
    if (statsPath) {
      res
        .writeHead(200, { ...CORS, 'Content-Type': 'application/json' })
        .end(JSON.stringify(statsOf(statsPath[1] as string)));
      return;
    }
    const m = /^\/([^/]+)\/(extra-part|[a-z0-9]+)(?:-(\d+|all))?(\/.*)$/.exec(url);
    if (!m) {
      res.writeHead(404, CORS).end();
      return;
    }
    const [, key, fault, countText, path] = m as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    const stats = statsOf(key);
    stats.requests++;
    if (fault === 'stallall') return; // accepted, never answered (listenLocal's close drops it)
    if (fault === 'frames' && /\/metadata(\?|$)/.test(path)) {
      fetchWhole(target, path, req.headers).then(
        (up) =>
          sendEdited(
            res,
            up,
            up.status === 200 ? withNumberOfFrames(up.body, Number(countText)) : up.body,
          ),
        (error) => {
          if (!res.headersSent) res.writeHead(502, CORS);
          res.end(String(error));
        },
      );
      return;
    }
    if (!/\/frames\/|\.dcm$/.test(path)) {
      forward(req, res, target, path, stats);
      return;
    }
    const n = ++stats.faultProne;
    const count = countText === 'all' ? Number.POSITIVE_INFINITY : Number(countText ?? 1);
    const hit = n <= count;
    if (fault === 'stall') return;
    if (fault === 'reset' && hit) {
      req.socket.destroy();
      return;
    }
    if (fault === '503' && hit) {
      res.writeHead(503, { ...CORS, 'Content-Length': '0' }).end();
      return;
    }
    if (!['truncate', 'cut', 'corrupt', 'extra-part'].includes(fault) || !hit) {
      forward(req, res, target, path, stats);
      return;
    }
    fetchWhole(target, path, req.headers).then(
      (up) => {
        if (up.status !== 200) return sendEdited(res, up, up.body);
        if (fault === 'cut') {
          return sendEdited(
            res,
            up,
            cutClosingBoundary(up.body, String(up.headers['content-type'])),
          );
        }
        if (fault === 'corrupt') return sendEdited(res, up, corruptJpegLs(up.body));
        if (fault === 'extra-part') {
          return sendEdited(res, up, addExtraPart(up.body, String(up.headers['content-type'])));
        }
        // truncate: announce the whole length, send half, then drop the connection
        res.writeHead(200, {
          ...CORS,
          'Content-Type': String(up.headers['content-type'] ?? 'application/octet-stream'),
          'Content-Length': up.body.length,
        });
        res.write(up.body.subarray(0, up.body.length >> 1), () => {
          setTimeout(() => res.socket?.destroy(), 20);
        });
      },
      (error) => {
        if (!res.headersSent) res.writeHead(502, CORS);
        res.end(String(error));
      },
    );
  });
  return listenLocal(server);
}
