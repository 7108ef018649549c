import {
  type Dataset,
  fromLoader,
  MemoryStore,
  type PersistentStore,
  PersistentTierDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

interface Sample {
  image: Float32Array;
  label: number;
}

function source(calls: number[]): Dataset<Sample> {
  return fromLoader(20, async (i) => {
    calls.push(i);
    return { image: new Float32Array([i, i + 0.5]), label: i % 3 };
  });
}

describe('PersistentTierDataset', () => {
  it('serves from the store after one pass and counts disk hits and misses', async () => {
    const store = new MemoryStore();
    const calls: number[] = [];
    const tier = new PersistentTierDataset(source(calls), {
      store,
      fingerprint: { name: 'xr', version: 2 },
    });
    for (let i = 0; i < 20; i++) await tier.get(i);
    await tier.flush();
    expect(await store.has('xr@2/7')).toBe(true);
    calls.length = 0;
    const fresh = new PersistentTierDataset(source(calls), {
      store,
      fingerprint: { name: 'xr', version: 2 },
    });
    const s = await fresh.get(7);
    expect(s.image).toBeInstanceOf(Float32Array);
    expect([...s.image]).toEqual([7, 7.5]);
    expect(calls).toEqual([]);
    expect(fresh.getDiskStats()).toMatchObject({ diskHits: 1, misses: 0, diskDisabled: false });
    expect(tier.getDiskStats()).toMatchObject({ diskHits: 0, misses: 20, diskWrites: 20 });
  });

  it('never serves samples of another data-set version', async () => {
    const store = new MemoryStore();
    const calls: number[] = [];
    const v1 = new PersistentTierDataset(source(calls), {
      store,
      fingerprint: { name: 'xr', version: 1 },
    });
    await v1.get(3);
    await v1.flush();
    const v2 = new PersistentTierDataset(source(calls), {
      store,
      fingerprint: { name: 'xr', version: 2 },
    });
    await v2.get(3);
    expect(v2.getDiskStats()).toMatchObject({ diskHits: 0, misses: 1 });
    expect(calls).toEqual([3, 3]);
  });

  it('treats undecodable bytes as a miss and deletes them', async () => {
    const store = new MemoryStore();
    const tier = new PersistentTierDataset(source([]), { store, fingerprint: 'fp' });
    await store.put('fp/4', new Uint8Array([1, 2, 3]));
    const errors: unknown[] = [];
    const t2 = new PersistentTierDataset(source([]), {
      store,
      fingerprint: 'fp',
      onDiskError: (e) => errors.push(e),
    });
    expect((await t2.get(4)).label).toBe(1);
    expect(t2.getDiskStats()).toMatchObject({ diskErrors: 1, misses: 1, diskHits: 0 });
    expect(errors).toHaveLength(1);
    await t2.flush();
    await tier.flush();
    // the bad entry was replaced by a good one
    expect(
      (await new PersistentTierDataset(source([]), { store, fingerprint: 'fp' }).get(4)).label,
    ).toBe(1);
  });

  it('keeps training without the disk tier when the quota runs out, and says so', async () => {
    const inner = new MemoryStore();
    let puts = 0;
    const full: PersistentStore = {
      get: (k) => inner.get(k),
      put: async (k, v) => {
        if (++puts > 2) throw new DOMException('quota', 'QuotaExceededError');
        await inner.put(k, v);
      },
      delete: (k) => inner.delete(k),
      has: (k) => inner.has(k),
      keys: () => inner.keys(),
      clear: () => inner.clear(),
      usage: () => inner.usage(),
    };
    const tier = new PersistentTierDataset(source([]), {
      store: full,
      fingerprint: 'q',
      writeQueue: { concurrency: 1 },
    });
    for (let i = 0; i < 10; i++) expect((await tier.get(i)).label).toBe(i % 3);
    await tier.flush();
    const st = tier.getDiskStats();
    expect(st.diskDisabled).toBe(true);
    expect(st.diskDisabledReason).toMatch(/QUOTA_EXCEEDED/);
    expect(st.diskWrites).toBe(2);
    expect(puts).toBe(3);
    expect(await tier.get(0)).toMatchObject({ label: 0 }); // from disk still
  });

  it('falls back to the source when the store fails to read, and shares concurrent loads', async () => {
    const calls: number[] = [];
    const broken = new MemoryStore();
    broken.get = async () => {
      throw new Error('worker gone');
    };
    const tier = new PersistentTierDataset(source(calls), { store: broken, fingerprint: 'b' });
    const [a, b] = await Promise.all([tier.get(1), tier.get(1)]);
    expect(a).toBe(b);
    expect(calls).toEqual([1]);
    expect(tier.getDiskStats().diskErrors).toBe(1);
  });

  it('derives a fingerprint from the source and validates its inputs', () => {
    const src = Object.assign(source([]), { name: 'chest', version: 'v9' });
    expect(new PersistentTierDataset(src, { store: new MemoryStore() }).fingerprint).toBe(
      'chest@v9#20',
    );
    expect(() => new PersistentTierDataset(src, { store: {} as PersistentStore })).toThrow(
      /store must be/,
    );
    expect(
      () => new PersistentTierDataset(src, { store: new MemoryStore(), fingerprint: '' }),
    ).toThrow(/fingerprint/);
    const tier = new PersistentTierDataset(src, { store: new MemoryStore() });
    expect(() => tier.get(20)).toThrow(RangeError);
  });
});
