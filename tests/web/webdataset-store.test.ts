import { MemoryStore, type PersistentStore, type StoreUsage } from '@medfusion/core';
import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');

/** A minimal in-memory PersistentStore (the interface only). */
function mapStore(): PersistentStore & { map: Map<string, Uint8Array> } {
  const map = new Map<string, Uint8Array>();
  return {
    map,
    get: async (k) => map.get(k)?.slice(),
    put: async (k, v) => {
      map.set(k, v.slice());
    },
    delete: async (k) => map.delete(k),
    has: async (k) => map.has(k),
    keys: async () => [...map.keys()],
    clear: async () => map.clear(),
    usage: async (): Promise<StoreUsage> => ({
      bytes: [...map.values()].reduce((n, v) => n + v.length, 0),
      entries: map.size,
    }),
  };
}

describe('WebDatasetSource: indices kept in the disk tier', () => {
  it('builds each index once, then reads it from the store (checked by ETag)', async () => {
    const store = mapStore();
    const urls = GNU_SHARDS.map((s) => `${nginx}${s.name}`);
    const first = await WebDatasetSource.open({ urls, store, sidecar: false });
    expect(first.stats()).toMatchObject({ indexBuilds: 3, storeHits: 0 });
    expect(store.map.size).toBe(3);
    first.close();

    let fullGets = 0;
    const counting: typeof fetch = (input, init) => {
      if (!new Headers(init?.headers).has('Range')) fullGets++;
      return fetch(input, init);
    };
    const second = await WebDatasetSource.open({ urls, store, sidecar: false, fetch: counting });
    expect(second.stats()).toMatchObject({ indexBuilds: 0, storeHits: 3 });
    expect(fullGets).toBe(0);
    expect((await second.get(50)).files).toEqual(sampleFiles(2, 6));
    second.close();
  });

  it('works with core MemoryStore and with sha256-verified shards', async () => {
    const store = new MemoryStore();
    const first = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest.json`, store });
    await first.get(50); // shard 2: streamed, hashed, indexed, stored
    expect(first.stats()).toMatchObject({ indexBuilds: 1, storeHits: 0 });
    first.close();
    const second = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest.json`, store });
    expect((await second.get(50)).files).toEqual(sampleFiles(2, 6));
    expect(second.stats()).toMatchObject({ indexBuilds: 0, storeHits: 1 });
    second.close();
  });

  it('ignores a stored index whose ETag no longer matches the object', async () => {
    const store = mapStore();
    const url = `${nginx}${GNU_SHARDS[0].name}`;
    const first = await WebDatasetSource.open({ urls: [url], store, sidecar: false });
    first.close();
    const [key] = store.map.keys();
    const record = JSON.parse(new TextDecoder().decode(store.map.get(key!)));
    record.etag = '"stale-etag"';
    store.map.set(key!, new TextEncoder().encode(JSON.stringify(record)));
    const second = await WebDatasetSource.open({ urls: [url], store, sidecar: false });
    expect(second.stats()).toMatchObject({ indexBuilds: 1, storeHits: 0 });
    expect((await second.get(3)).files).toEqual(sampleFiles(0, 3));
    second.close();
  });
});
