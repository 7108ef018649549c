/**
 * Vitest global setup (Node) for the browser tests: builds fixtures with
 * third-party tools into a temp dir, starts nginx and the Node range servers
 * on 127.0.0.1, and `provide`s their URLs (read them with `inject`).
 * Other suites can extend this file: add a server, provide its URL, and stop
 * it in the returned teardown.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildFixtures } from '../fixtures-shards/buildFixtures.js';
import type { ShardServers } from '../fixtures-shards/fixtures.js';
import { GNU_SHARDS, PARQUET } from '../fixtures-shards/fixtures.js';
import { startNginx } from '../fixtures-shards/nginx.js';
import { startRangeServer } from '../fixtures-shards/rangeServer.js';
import { type S3Servers, startS3 } from './s3Server.js';
import { startSampleServer } from './sampleServer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URLs of the shard fixture servers (see tests/fixtures-shards/fixtures.ts). */
    shardServers: ShardServers;
    /** Base URL of the sample server (tests/setup/sampleServer.ts). */
    sampleServer: string;
    /** The S3-compatible store holding the GNU shards, and its stand-in backend (tests/setup/s3Server.ts). */
    s3: S3Servers;
  }
}

function openUp(path: string): void {
  // nginx workers may run as another user: make the tree world-readable.
  chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  if (statSync(path).isDirectory()) for (const f of readdirSync(path)) openUp(join(path, f));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tmp = mkdtempSync(join(tmpdir(), 'medfusion-shards-'));
  const root = join(tmp, 'www');
  await buildFixtures(root);
  openUp(tmp);
  const node = await startRangeServer({ root, failRate: 0.2, seed: 42 });
  // nginx is required (npm test installs nginx-light); MEDFUSION_NO_NGINX=1 serves the
  // same files from the Node range server instead, for machines without it.
  const nginx = process.env.MEDFUSION_NO_NGINX
    ? { url: `${node.url}/plain/`, stop: async () => {} }
    : await startNginx(root, join(tmp, 'nginx'));
  const samples = await startSampleServer();
  // The bucket: the GNU shards with their manifest and sidecars, the Parquet table, and the
  // CSV + PNG fixtures.
  const objects = new Map<string, string>();
  for (const name of [
    'manifest.json',
    PARQUET.name,
    ...GNU_SHARDS.flatMap((s, i) => (i < 2 ? [s.name, `${s.name}.idx.json`] : [s.name])),
  ]) {
    objects.set(name, join(root, name));
  }
  const csv = fileURLToPath(new URL('../web/fixtures/csv-images/', import.meta.url));
  objects.set('csv-images/manifest.csv', join(csv, 'manifest.csv'));
  for (const png of readdirSync(join(csv, 'images'))) {
    objects.set(`csv-images/images/${png}`, join(csv, 'images', png));
  }
  const s3 = await startS3(objects);
  project.provide('sampleServer', samples.url);
  project.provide('s3', s3.servers);
  project.provide('shardServers', {
    nginx: nginx.url,
    flaky: `${node.url}/flaky/`,
    changing: `${node.url}/changing/`,
    stats: `${node.url}/stats/`,
  });
  return async () => {
    await Promise.all([nginx.stop(), node.close(), samples.close(), s3.close()]);
    rmSync(tmp, { recursive: true, force: true });
  };
}
