import { flushMicrotasks, fromLoader, MemoryStore, PersistentTierDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

// Issue 18: in a cold epoch every read of the disk tier is a miss; asking the
// store first put a store round trip (behind the store's other work) before
// every load. The tier lists the store once and sends known misses straight
// to the source.

/** A MemoryStore that logs its reads. */
class LoggingStore extends MemoryStore {
  readonly reads: string[] = [];

  override async get(key: string) {
    this.reads.push(key);
    return super.get(key);
  }
}

/** A LoggingStore that cannot list its keys. */
class UnlistableStore extends LoggingStore {
  override async keys(): Promise<string[]> {
    throw new Error('cannot list');
  }
}

const source = () => fromLoader(10, (i) => ({ x: new Float32Array([i]) }));

describe('the disk tier: known misses skip the store', () => {
  it('reads the store only for samples it holds, once it has listed them', async () => {
    const store = new LoggingStore();
    await store.put('t/3', new Uint8Array([1])); // not a sample: a corrupt entry, read and replaced
    const disk = new PersistentTierDataset(source(), { store, fingerprint: 't' });
    await disk.get(0); // the first read lists the store (and asks it meanwhile)
    await flushMicrotasks();
    store.reads.length = 0;
    await disk.get(1);
    await disk.get(2);
    expect(store.reads).toEqual([]); // known misses: straight to the source
    await disk.get(3);
    expect(store.reads).toEqual(['t/3']); // listed: asked
    await disk.flush();
    store.reads.length = 0;
    expect((await disk.get(1)).x[0]).toBe(1);
    expect(store.reads).toEqual(['t/1']); // written by the tier: asked, and a disk hit
    expect(disk.getDiskStats()).toMatchObject({ diskHits: 1, misses: 4 });
    await disk.close();
  });

  it('serves what an earlier session wrote (the listing holds it)', async () => {
    const store = new LoggingStore();
    const first = new PersistentTierDataset(source(), { store, fingerprint: 't' });
    await first.get(5);
    await first.close();
    const second = new PersistentTierDataset(source(), { store, fingerprint: 't' });
    await second.get(0);
    await flushMicrotasks();
    expect((await second.get(5)).x[0]).toBe(5);
    expect(second.getDiskStats()).toMatchObject({ diskHits: 1 });
    await second.close();
  });

  it('asks the store for every read when it cannot list', async () => {
    const store = new UnlistableStore();
    const disk = new PersistentTierDataset(source(), { store, fingerprint: 't' });
    await disk.get(0);
    await flushMicrotasks();
    await disk.get(1);
    expect(store.reads).toEqual(['t/0', 't/1']);
    await disk.close();
  });
});
