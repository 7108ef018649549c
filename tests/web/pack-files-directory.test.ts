// packFiles from a FileSystemDirectoryHandle (a folder the user granted), walked
// recursively, labels from the first folder (ImageFolder layout), non-images skipped.
import { opfsShards, packFiles, WebDatasetSource } from '@medfusion/web';
import { afterAll, describe, expect, it } from 'vitest';
import { png, removeOpfsDir } from './packFixtures.js';

const INPUT = 'pack-dir-input';
const OUT = 'pack-dir-output';

/**
 * Write the test's input file, then read it back: the input must hold exactly `bytes`. fast-png's
 * `encode` returns a view of a larger buffer, and WebKit's `createWritable().write(view)` writes
 * the view's whole ArrayBuffer, so the view is copied to a buffer of its own first.
 */
async function write(dir: FileSystemDirectoryHandle, name: string, bytes: Uint8Array | string) {
  const handle = await dir.getFileHandle(name, { create: true });
  const w = await handle.createWritable();
  await w.write(typeof bytes === 'string' ? bytes : bytes.slice());
  await w.close();
  const want = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  expect(new Uint8Array(await (await handle.getFile()).arrayBuffer())).toEqual(want);
}

describe('packFiles: a directory handle with folder labels', () => {
  afterAll(async () => {
    await removeOpfsDir(INPUT);
    await removeOpfsDir(OUT);
  });

  it('packs every image below the folder, labelled by its first folder, in path order', async () => {
    await removeOpfsDir(INPUT);
    await removeOpfsDir(OUT);
    const root = await navigator.storage.getDirectory();
    const input = await root.getDirectoryHandle(INPUT, { create: true });
    const bytes: Record<string, Uint8Array> = {};
    for (const [label, n] of [
      ['normal', 3],
      ['tumour', 2],
    ] as const) {
      const sub = await input.getDirectoryHandle(label, { create: true });
      for (let i = 0; i < n; i++) {
        const b = png(10, 10, i + (label === 'normal' ? 0 : 50));
        bytes[`${label}/x${i}`] = b;
        await write(sub, `x${i}.png`, b);
      }
    }
    await write(input, 'README.txt', 'not an image');
    const result = await packFiles({ directory: input, folderLabels: true, dir: OUT });
    expect(result).toMatchObject({
      samples: 5,
      shards: 1,
      skipped: 1,
      classes: ['normal', 'tumour'],
    });
    const ds = await WebDatasetSource.open(opfsShards(OUT));
    const got: [string, string][] = [];
    for (let i = 0; i < ds.length; i++) {
      const s = await ds.get(i);
      expect(s.files.png).toEqual(bytes[s.key]);
      got.push([s.key, new TextDecoder().decode(s.files.cls)]);
    }
    expect(got).toEqual([
      ['normal/x0', '0'],
      ['normal/x1', '0'],
      ['normal/x2', '0'],
      ['tumour/x0', '1'],
      ['tumour/x1', '1'],
    ]);
  });
});
