import { flushMicrotasks, fromLoader, MemoryStore, PersistentTierDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/**
 * A MemoryStore whose reads stay pending until released, logging every call.
 * It cannot list its keys, so the tier asks it for every read (a listable
 * store's known misses never reach it: disk-known-miss.test.ts).
 */
class SlowReadStore extends MemoryStore {
  readonly log: string[] = [];
  private held: (() => void)[] = [];

  override async keys(): Promise<string[]> {
    throw new Error('this store cannot list its keys');
  }

  override async get(key: string) {
    this.log.push(`get ${key}`);
    await new Promise<void>((resolve) => this.held.push(resolve));
    return super.get(key);
  }

  override async put(key: string, value: Parameters<MemoryStore['put']>[1]) {
    this.log.push(`put ${key}`);
    return super.put(key, value);
  }

  release(): void {
    const held = this.held;
    this.held = [];
    for (const r of held) r();
  }
}

describe('the disk tier: write-behind yields to reads', () => {
  it('starts a queued write only once no store read is waiting', async () => {
    const store = new SlowReadStore();
    let finishLoad: (() => void) | undefined;
    const source = fromLoader(10, async (i) => {
      if (i === 0) await new Promise<void>((resolve) => (finishLoad = resolve));
      return { x: new Float32Array([i]) };
    });
    const disk = new PersistentTierDataset(source, { store, fingerprint: 't' });
    const first = disk.get(0);
    await flushMicrotasks();
    store.release(); // 0 is not on disk: it loads from the source
    await flushMicrotasks();
    const second = disk.get(1); // a read waits on the store
    await flushMicrotasks();
    finishLoad?.(); // 0 arrives: its write is queued while the read of 1 waits
    await first;
    await flushMicrotasks();
    expect(store.log).toEqual(['get t/0', 'get t/1']);
    store.release();
    await second;
    await disk.flush();
    expect(store.log.slice(2)).toEqual(['put t/0', 'put t/1']);
    await disk.close();
  });
});
