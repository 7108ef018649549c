// Issue 38: `npx medfusion` works from the packed tarball installed in a fresh folder
// (npm, no workspace links): it packs a folder of images and verifies the result, and packs the
// same folder again from a listing (`medfusion list`, `pack --listing`) into the same data set.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encode } from 'fast-png';
import { beforeAll, describe, expect, it } from 'vitest';
import { installApp, run } from './consumerApp.js';

describe('the medfusion command, installed from its tarball', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await installApp('node-cli');
    for (const [i, label] of ['a', 'b', 'a'].entries()) {
      await mkdir(join(dir, 'images', label), { recursive: true });
      const data = new Uint8Array(64).fill(i * 40);
      await writeFile(
        join(dir, 'images', label, `${i}.png`),
        encode({ width: 8, height: 8, data, channels: 1 }),
      );
    }
  });

  it('npx medfusion packs a folder and verifies it', async () => {
    expect((await run(dir, 'npx', ['--no-install', 'medfusion', '--version'])).trim()).toBe(
      '0.1.0',
    );
    const packed = await run(dir, 'npx', [
      '--no-install',
      'medfusion',
      'pack',
      'images',
      '--out',
      'shards',
      '--folder-labels',
    ]);
    expect(packed).toMatch(/packed: 3 samples in 1 shards/);
    const verified = await run(dir, 'npx', ['--no-install', 'medfusion', 'verify', 'shards']);
    expect(verified).toMatch(/ok: 1 shards, 3 samples verified/);
  });

  it('npx medfusion list, then pack --listing, gives the same data set', async () => {
    const npx = (...args: string[]) => run(dir, 'npx', ['--no-install', 'medfusion', ...args]);
    await npx('pack', 'images', '--out', 'walked', '--folder-labels');
    expect(await npx('list', 'images', '--out', 'images.listing')).toMatch(/listed 3 files/);
    const listed = await npx(
      'pack',
      'images',
      '--listing',
      'images.listing',
      '--out',
      'from-listing',
      '--folder-labels',
    );
    expect(listed).toMatch(/packed: 3 samples in 1 shards/);
    const manifest = async (d: string) =>
      JSON.parse(await readFile(join(dir, d, 'manifest.json'), 'utf8'));
    expect((await manifest('from-listing')).fingerprint).toBe(
      (await manifest('walked')).fingerprint,
    );
  });
});
