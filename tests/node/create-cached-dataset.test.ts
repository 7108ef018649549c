// @medfusion/node's createCachedDataset: core's, with cacheDir (an LmdbStore there) and
// maxSizeGB; and the package re-exports core's public API, so a Node job imports it alone.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@medfusion/core';
import * as node from '@medfusion/node';
import { createCachedDataset, fromLoader, LmdbStore, MemoryStore } from '@medfusion/node';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
const dirName = (tag: string) => {
  const d = join(
    tmpdir(),
    `medfusion-node-factory-${tag}-${process.pid}-${Math.random().toString(36).slice(2)}`,
  );
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('@medfusion/node', () => {
  it('re-exports every value core exports, the same object, except its own createCachedDataset', () => {
    const exported = node as Record<string, unknown>;
    for (const [name, value] of Object.entries(core)) {
      if (name === 'createCachedDataset') continue;
      expect(exported[name], name).toBe(value);
    }
    expect(node.createCachedDataset).not.toBe(core.createCachedDataset);
  });

  it('createCachedDataset with cacheDir: a later dataset on the same folder reads the disk, not the source', async () => {
    const cacheDir = dirName('reuse');
    let loads = 0;
    const source = fromLoader(20, (i) => {
      loads++;
      return { x: new Float32Array(100).fill(i) };
    });
    const opts = {
      cacheType: 'lru' as const,
      cacheSize: 2,
      cacheDir,
      maxSizeGB: 0.01,
      fingerprint: 'f@1',
    };
    const a = createCachedDataset(source, opts);
    for (let i = 0; i < 20; i++) await a.get(i);
    await a.close(); // writes the queue, closes the LmdbStore it opened
    expect(loads).toBe(20);
    const b = createCachedDataset(source, opts);
    for (let i = 0; i < 20; i++) expect((await b.get(i)).x[0]).toBe(i);
    expect(loads).toBe(20);
    expect(b.getCacheStats().diskHits).toBe(20);
    await b.close();
    const store = new LmdbStore({ dir: cacheDir });
    expect((await store.usage()).maxBytes).toBe(2 ** 30);
    expect((await store.keys()).length).toBe(20);
    await store.close();
  });

  it('refuses options that do not apply or are out of range, naming them', () => {
    const source = fromLoader(1, () => ({ x: new Float32Array(1) }));
    expect(() => createCachedDataset(source, { maxSizeGB: 1 })).toThrow(
      /maxSizeGB applies only with cacheDir/,
    );
    expect(() => createCachedDataset(source, { cacheDir: 'x', maxSizeGB: -1 })).toThrow(RangeError);
    expect(() => createCachedDataset(source, { cacheDir: 'x', store: new MemoryStore() })).toThrow(
      /either cacheDir or store/,
    );
    expect(() => new LmdbStore({ dir: '' })).toThrow(/dir/);
    expect(() => new LmdbStore({ dir: 'x', encryptionKey: 'k' as never })).toThrow(/encryptionKey/);
  });
});
