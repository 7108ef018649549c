// Issue 13, 2d: a Node ESM script with @medfusion/core alone (installed from its
// tarball, no browser, no @medfusion/web) reads a data set twice through the cache
// with a disk tier and a DataLoader, and exits 0.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installApp, run } from './consumerApp.js';

describe('a Node script with @medfusion/core, installed from its tarball', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await installApp('node-core');
  });

  it('installs @medfusion/core alone', async () => {
    expect(await readdir(join(dir, 'node_modules', '@medfusion'))).toEqual(['core']);
  });

  it('reads a data set through the cache and a DataLoader and exits 0', async () => {
    const out = await run(dir, process.execPath, ['main.js']);
    expect(JSON.parse(out)).toEqual({
      seen: [40, 40],
      loads: 40,
      diskHits: expect.any(Number),
      lruHasA: false,
      lruSize: 2,
    });
  });
});
