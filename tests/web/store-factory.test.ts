import {
  createCachedDataset,
  fromArray,
  MemoryMappedCache,
  MemoryStore,
  OpfsStore,
  storeForCacheDir,
  TieredCachedDataset,
} from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-factory-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) {
    await root.removeEntry(d, { recursive: true }).catch(() => {});
    await deleteDB(`medfusion:${d}`);
  }
});

describe('web createCachedDataset and cacheDir', () => {
  it('maps cacheDir to an OpfsStore it owns and closes', async () => {
    const cacheDir = dirName('own');
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

  it('rejects the cacheDir options without cacheDir, and ownsStore with it', () => {
    const ds = fromArray([1]);
    expect(() => createCachedDataset(ds, { cacheMaxBytes: 2 ** 20 })).toThrow(
      /cacheMaxBytes applies only with cacheDir/,
    );
    expect(() => createCachedDataset(ds, { persist: true })).toThrow(
      /persist applies only with cacheDir/,
    );
    expect(() => createCachedDataset(ds, { cacheDir: dirName('x'), ownsStore: false })).toThrow(
      /ownsStore applies only with store/,
    );
  });

  it('owns the store it opened for cacheDir, not one the caller passed', async () => {
    const owned = createCachedDataset(fromArray([new Uint8Array([1])]), {
      cacheDir: dirName('owned'),
    });
    expect(owned).toBeInstanceOf(TieredCachedDataset);
    expect(owned.ownsStore).toBe(true);
    await owned.close();

    const store = new OpfsStore({ dir: dirName('passed') });
    const passed = createCachedDataset(fromArray([new Uint8Array([7])]), {
      store,
      fingerprint: 'p@1',
    });
    expect(passed.ownsStore).toBe(false);
    await passed.get(0);
    await passed.close();
    expect(await store.keys()).toEqual(['p@1/0']); // still open: it is the caller's
    await store.close();
  });
});

describe.each(['opfs', 'idb'] as const)('one cacheDir, one store (%s)', (backend) => {
  it('MemoryMappedCache and storeForCacheDir open the same store with the same default budget', async () => {
    const cacheDir = dirName(backend);
    const cache = new MemoryMappedCache({ cacheDir, backend });
    await cache.put('scan', new Float32Array([0.5]));
    await cache.close();
    const store = storeForCacheDir(cacheDir, { backend });
    expect(await store.keys()).toEqual(['scan']);
    expect((await store.usage()).maxBytes).toBe(cache.maxBytes);
    expect(cache.maxBytes).toBe(10 * 2 ** 30);
    await store.close?.();
  });
});
