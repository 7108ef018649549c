/**
 * An S3-compatible object store for the browser tests, as a user has one: s3rver on
 * 127.0.0.1 holding the shard fixtures in a bucket whose CORS is set through the S3 API,
 * reached through a logging proxy (s3rver does not verify signatures, so the tests read
 * what every request carried from the proxy's log, not from the answers), and a stand-in
 * app backend that presigns GETs with the AWS SDK (short expiry), as the page's `signUrl`
 * hook would ask a real backend.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import S3rver from 's3rver';
import { listenLocal } from './listenLocal.js';

/** What the S3 setup provides to the browser tests (`inject('s3')`). */
export interface S3Servers {
  /** The object store as the page sees it (the logging proxy), e.g. `http://127.0.0.1:PORT`. */
  endpoint: string;
  /** The bucket holding the shard fixtures. */
  bucket: string;
  /**
   * The stand-in backend: `GET ${backend}/sign?url=<object URL>` answers a presigned URL
   * (`&expired=1`: one that expired an hour ago); `GET ${backend}/log` the proxy's log,
   * {@link S3LogEntry}[].
   */
  backend: string;
  /** Seconds a presigned URL of the backend lives. */
  expiresIn: number;
}

/** One request the proxy passed to the object store. */
export interface S3LogEntry {
  /** Order of arrival. */
  seq: number;
  method: string;
  /** Path without the query, `/<bucket>/<key>`. */
  path: string;
  /** The request's `X-Amz-Signature`, or null when it had none. */
  signature: string | null;
  /** The query string is exactly one the backend issued for this path. */
  issued: boolean;
  /** The signature had expired when the request arrived (by its X-Amz-Date + X-Amz-Expires). */
  expired: boolean;
  /** The object store's answer. */
  status: number;
}

const ACCESS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const BUCKET = 'medfusion-shards';
/**
 * Seconds a presigned URL lives. X-Amz-Date counts whole seconds, so a URL lives between
 * EXPIRES_IN - 1 and EXPIRES_IN seconds after it is signed: with 2, Firefox under the suite's
 * load (three engines) once sent a freshly re-signed URL after it had expired.
 */
const EXPIRES_IN = 5;

function clientFor(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: ACCESS });
}

function expiredAt(query: URLSearchParams, now: number): boolean {
  const date = query.get('X-Amz-Date') ?? '';
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(date);
  if (!m) return true;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const signedAt = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
  return now > signedAt + Number(query.get('X-Amz-Expires') ?? 0) * 1000;
}

/**
 * Start s3rver, upload `files` (object key → local path) into the bucket, start the proxy and
 * the backend, whose presigned URLs live `expiresIn` seconds.
 */
export async function startS3(
  files: ReadonlyMap<string, string>,
  expiresIn = EXPIRES_IN,
): Promise<{ servers: S3Servers; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'medfusion-s3rver-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
  const { port } = (await s3.run()) as { port: number };
  const store = `http://127.0.0.1:${port}`;
  const admin = clientFor(store);
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await admin.send(
    new PutBucketCorsCommand({
      Bucket: BUCKET,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: ['*'],
            AllowedMethods: ['GET', 'HEAD'],
            AllowedHeaders: ['*'],
            ExposeHeaders: ['ETag', 'Content-Range', 'Content-Length'],
            MaxAgeSeconds: 600,
          },
        ],
      },
    }),
  );
  for (const [Key, path] of files) {
    await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: readFileSync(path) }));
  }

  const log: S3LogEntry[] = [];
  const issued = new Map<string, string>(); // query string → path it was issued for
  const proxy = await listenLocal(
    createServer((req, res) => {
      const url = new URL(req.url ?? '/', store);
      const entry: S3LogEntry = {
        seq: log.length,
        method: req.method ?? '',
        path: url.pathname,
        signature: url.searchParams.get('X-Amz-Signature'),
        issued: issued.get(url.search) === url.pathname,
        expired: expiredAt(url.searchParams, Date.now()),
        status: 0,
      };
      log.push(entry);
      const upstream = request(
        `${store}${req.url}`,
        { method: req.method, headers: { ...req.headers, host: `127.0.0.1:${port}` } },
        (answer) => {
          entry.status = answer.statusCode ?? 0;
          const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(answer.headers['content-range'] ?? '');
          if (req.headers.range === 'bytes=0-0' && range && range[2] !== '0') {
            // s3rver reads `bytes=0-0` as `bytes=0-` (its `end || Infinity`) and sends the whole
            // object; S3 sends one byte. Answer as S3 does: the first byte only.
            answer.once('data', (chunk: Buffer) => {
              answer.destroy();
              const headers = { ...answer.headers, 'content-range': `bytes 0-0/${range[3]}` };
              res.writeHead(206, { ...headers, 'content-length': '1' });
              res.end(chunk.subarray(0, 1));
            });
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }),
  );

  const signer = clientFor(proxy.url);
  const backend = await listenLocal(
    createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://backend');
      const answer = (status: number, type: string, body: string) => {
        res.writeHead(status, { 'Content-Type': type, 'Access-Control-Allow-Origin': '*' });
        res.end(body);
      };
      if (url.pathname === '/log') return answer(200, 'application/json', JSON.stringify(log));
      if (url.pathname !== '/sign') return answer(404, 'text/plain', 'not found');
      let object: URL;
      try {
        object = new URL(url.searchParams.get('url') ?? '');
      } catch {
        return answer(400, 'text/plain', 'url must be an absolute URL');
      }
      if (object.origin !== proxy.url || !object.pathname.startsWith(`/${BUCKET}/`)) {
        return answer(403, 'text/plain', 'not an object of this bucket');
      }
      const key = decodeURIComponent(object.pathname.slice(BUCKET.length + 2));
      const expired = url.searchParams.get('expired') === '1';
      // A test that must not see an expiry asks for a longer life (seconds, 1 to 3600).
      const life = Number(url.searchParams.get('expiresIn') ?? expiresIn);
      if (!Number.isInteger(life) || life < 1 || life > 3600) {
        return answer(400, 'text/plain', 'expiresIn must be an integer from 1 to 3600');
      }
      getSignedUrl(signer, new GetObjectCommand({ Bucket: BUCKET, Key: key }), {
        expiresIn: life,
        ...(expired ? { signingDate: new Date(Date.now() - 3_600_000) } : {}),
      }).then(
        (signed) => {
          const s = new URL(signed);
          issued.set(s.search, s.pathname);
          answer(200, 'text/plain', signed);
        },
        (error) => answer(500, 'text/plain', String(error)),
      );
    }),
  );

  return {
    servers: { endpoint: proxy.url, bucket: BUCKET, backend: backend.url, expiresIn },
    close: async () => {
      await Promise.all([proxy.close(), backend.close()]);
      await s3.close();
      admin.destroy();
      signer.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
