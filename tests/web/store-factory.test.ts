import { fromArray, MemoryStore } from '@medfusion/core';
import { createCachedDataset, OpfsStore, storeForCacheDir } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

describe('web createCachedDataset and cacheDir', () => {
  it('maps cacheDir to an OpfsStore it owns and closes', async () => {
    const cacheDir = `test-factory-${Math.random().toString(36).slice(2)}`;
    dirs.push(cacheDir);
    const ds = createCachedDataset(
      fromArray([{ v: new Int32Array([1]) }, { v: new Int32Array([2]) }]),
      {
        cacheType: 'lru',
        cacheDir,
        cacheMaxBytes: 2 ** 20,
        fingerprint: 'f@1',
      },
    );
    expect((await ds.get(1)).v).toEqual(new Int32Array([2]));
    await ds.flush();
    await ds.close();
    const store = new OpfsStore({ dir: cacheDir });
    expect(await store.keys()).toEqual(['f@1/1']);
    await store.close();
    expect(storeForCacheDir('x')).toBeInstanceOf(OpfsStore);
  });

  it('rejects bad combinations naming the option', () => {
    const ds = fromArray([1]);
    expect(() => createCachedDataset(ds, { cacheDir: '' })).toThrow(/cacheDir/);
    expect(() => createCachedDataset(ds, { cacheDir: 'a', store: new MemoryStore() })).toThrow(
      /either cacheDir or store/,
    );
    expect(() => createCachedDataset(ds, { cacheDir: 'a', cacheMaxBytes: -1 })).toThrow(
      /cacheMaxBytes/,
    );
    expect(() => createCachedDataset(ds, { cacheDir: 'a', fingerprint: '' })).toThrow(
      /fingerprint/,
    );
  });
});
