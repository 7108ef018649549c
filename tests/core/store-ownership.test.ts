import { createCachedDataset, fromArray, MemoryStore, TieredCachedDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A MemoryStore that records its writes and closes. */
class CountingStore extends MemoryStore {
  closes = 0;
  readonly events: string[] = [];
  override async put(key: string, value: Uint8Array): Promise<void> {
    this.events.push(`put ${key}`);
    await super.put(key, value);
  }
  override async close(): Promise<void> {
    this.closes++;
    this.events.push('close');
    await super.close();
  }
}

const data = () => fromArray([new Float32Array([1]), new Float32Array([2])]);

describe('who closes the store of the disk tier', () => {
  it('a store the user passed stays open after close(), and keeps its samples', async () => {
    const store = new CountingStore();
    const ds = createCachedDataset(data(), { store, fingerprint: 'own@1' });
    expect(ds.ownsStore).toBe(false);
    await ds.get(1);
    await ds.close();
    expect(store.closes).toBe(0);
    expect(await store.keys()).toEqual(['own@1/1']); // the queued write finished before close() returned
    await store.close();
  });

  it('ownsStore: true hands the store over: close() closes it once, after the last write', async () => {
    const store = new CountingStore();
    const ds = new TieredCachedDataset(data(), {
      store,
      ownsStore: true,
      fingerprint: 'own@1',
      prefetchSize: 0,
    });
    expect(ds.ownsStore).toBe(true);
    await ds.get(0);
    await Promise.all([ds.close(), ds.close()]);
    expect(store.events).toEqual(['put own@1/0', 'close']);
    expect(store.closes).toBe(1);
    await expect(store.keys()).rejects.toThrow(/closed/i);
    expect(() => ds.get(0)).toThrow(/closed/i);
  });

  it('rejects a bad ownsStore and disk options without a store, naming the option', () => {
    const store = new MemoryStore();
    expect(() => createCachedDataset(data(), { store, ownsStore: 'yes' as never })).toThrow(
      /ownsStore must be a boolean, got "yes"/,
    );
    expect(() => createCachedDataset(data(), { ownsStore: true })).toThrow(
      /ownsStore applies only with store/,
    );
    expect(() => createCachedDataset(data(), { fingerprint: 'x@1' })).toThrow(
      /fingerprint applies only with store/,
    );
  });
});
