import { createCachedDataset, type Dataset, fromLoader, IdbStore } from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, inject, it } from 'vitest';

const N = 48;
const base = inject('sampleServer');

/** The bytes the sample server sends for sample i (see tests/setup/sampleServer.ts). */
function expected(i: number): Uint8Array {
  const b = new Uint8Array(4096);
  for (let k = 0; k < b.length; k++) b[k] = (i * 131 + k * 7) & 0xff;
  return b;
}

function httpSource(path: 'sample' | 'down', fetches: number[]): Dataset<Uint8Array> {
  return fromLoader(N, async (i, signal) => {
    fetches.push(i);
    const res = await fetch(`${base}/${path}/${i}`, {
      signal: signal ?? null,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status} for sample ${i}`);
    return new Uint8Array(await res.arrayBuffer());
  });
}

function shuffled(seed: number): number[] {
  const order = Array.from({ length: N }, (_, i) => i);
  let s = seed;
  for (let i = N - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) {
    await root.removeEntry(d, { recursive: true }).catch(() => {});
    await deleteDB(d);
  }
});

describe('offline second visit', () => {
  it('after one epoch over HTTP with cacheDir, new objects serve every sample from disk while the network fails', async () => {
    const cacheDir = `test-offline-${Math.random().toString(36).slice(2)}`;
    dirs.push(cacheDir);
    const fingerprint = { name: 'offline-test', version: 1 };
    const online: number[] = [];
    const first = createCachedDataset(httpSource('sample', online), {
      cacheType: 'both',
      cacheSize: 8,
      prefetchSize: 4,
      cacheDir,
      fingerprint,
    });
    const order = shuffled(7);
    first.setPlan(order);
    for (const i of order) expect(await first.get(i)).toEqual(expected(i));
    await first.flush();
    expect(first.getCacheStats()).toMatchObject({ diskMisses: N, diskHits: 0 });
    expect(new Set(online).size).toBe(N);
    await first.close();

    // "next visit": new dataset, new store, new worker; the network is down
    const offline: number[] = [];
    const second = createCachedDataset(httpSource('down', offline), {
      cacheType: 'both',
      cacheSize: 8,
      prefetchSize: 4,
      cacheDir,
      fingerprint,
    });
    const order2 = shuffled(11);
    second.setPlan(order2);
    for (const i of order2) expect(await second.get(i)).toEqual(expected(i));
    const s = second.getCacheStats();
    expect(s.diskHits).toBe(N);
    expect(s.diskMisses).toBe(0);
    expect(offline).toEqual([]);
    await second.close();
  });

  it('works the same with an IdbStore given as store', async () => {
    const name = `test-offline-idb-${Math.random().toString(36).slice(2)}`;
    dirs.push(name);
    const firstStore = new IdbStore({ name });
    const first = createCachedDataset(httpSource('sample', []), {
      cacheType: 'lru',
      cacheSize: 4,
      store: firstStore,
      fingerprint: 'idb-offline@1',
    });
    for (let i = 0; i < N; i++) await first.get(i);
    await first.close();
    await firstStore.close();
    const store = new IdbStore({ name });
    const second = createCachedDataset(httpSource('down', []), {
      cacheType: 'lru',
      cacheSize: 4,
      store,
      fingerprint: 'idb-offline@1',
    });
    for (let i = N - 1; i >= 0; i--) expect(await second.get(i)).toEqual(expected(i));
    expect(second.getCacheStats()).toMatchObject({ diskHits: N, diskMisses: 0 });
    await second.close();
    await store.close();
  });

  it('a source failure with nothing on disk surfaces as an error, never as a hang', async () => {
    const cacheDir = `test-offline-empty-${Math.random().toString(36).slice(2)}`;
    dirs.push(cacheDir);
    const ds = createCachedDataset(httpSource('down', []), {
      cacheType: 'lru',
      cacheDir,
      fingerprint: 'none@1',
    });
    await expect(ds.get(3)).rejects.toThrow(/503|sample 3/);
    await ds.close();
  });
});
