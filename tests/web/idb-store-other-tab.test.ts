// IdbStore when another tab deletes its database while it is open: the store
// lets go of its connection (the delete is not blocked), a read after it finds
// nothing (never stale bytes from the old connection), and the store reopens a
// fresh database for the next write. Reads in flight when the store closes end
// with a ClosedError, not a hang.
import { ClosedError, IdbStore } from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';

const names: string[] = [];
function dbName(tag: string): string {
  const n = `test-idb-tab-${tag}-${Math.random().toString(36).slice(2)}`;
  names.push(n);
  return n;
}
afterEach(async () => {
  for (const n of names.splice(0)) await deleteDB(n);
});

const value = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 13 + seed) & 0xff);

describe('IdbStore and another tab', () => {
  it('a delete from elsewhere goes through; reads then find nothing and writes reopen', async () => {
    const name = dbName('delete');
    const store = new IdbStore({ name });
    await store.put('a', value(3000, 1));
    expect(await store.get('a')).toEqual(value(3000, 1)); // the one-request path is warm
    let blocked = false;
    await deleteDB(name, {
      blocked: () => {
        blocked = true;
      },
    });
    expect(blocked).toBe(false);
    expect(await store.get('a')).toBeUndefined();
    await store.put('b', value(500, 2));
    expect(await store.get('b')).toEqual(value(500, 2));
    expect(await store.usage()).toMatchObject({ entries: 1, bytes: 500 });
    await store.close();
  });

  it('reads issued together with close() end with a ClosedError or their value', async () => {
    const name = dbName('close');
    const store = new IdbStore({ name });
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.put(`k${i}`, value(1000, i))));
    expect(await store.get('k0')).toEqual(value(1000, 0));
    const reads = Array.from({ length: 8 }, (_, i) => store.get(`k${i}`));
    const closing = store.close();
    const settled = await Promise.allSettled(reads);
    await closing;
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') expect(s.value).toEqual(value(1000, i));
      else expect(s.reason).toBeInstanceOf(ClosedError);
    });
    await expect(store.get('k0')).rejects.toBeInstanceOf(ClosedError);
  });
});
