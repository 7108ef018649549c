// Issue 48: a Node job with @medfusion/node (installed from its tarball, lmdb from npm) runs the
// seed's example with a persistent disk tier across two processes: the first loads in worker
// threads and fills ./cache, the second reads every sample from ./cache with the source failing.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installApp, run } from './consumerApp.js';

describe('a Node job with @medfusion/node, installed from its tarball', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await installApp('node-lmdb');
  });

  it('installs @medfusion/node with core and lmdb', async () => {
    expect((await readdir(join(dir, 'node_modules', '@medfusion'))).sort()).toEqual([
      'core',
      'node',
    ]);
    expect(await readdir(join(dir, 'node_modules'))).toContain('lmdb');
  });

  it('runs the seed example twice: the second process reads the disk tier the first filled', async () => {
    const fill = JSON.parse(await run(dir, process.execPath, ['main.js', 'fill']));
    expect(fill).toMatchObject({
      phase: 'fill',
      epochs: [64, 64],
      diskMisses: 64,
      offMainThread: true,
    });
    const offline = JSON.parse(await run(dir, process.execPath, ['main.js', 'offline']));
    expect(offline).toMatchObject({ phase: 'offline', epochs: [64, 64], sourceLoads: 0 });
    expect(offline.diskHits).toBeGreaterThanOrEqual(64);
  });
});
