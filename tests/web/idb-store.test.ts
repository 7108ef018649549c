import { ClosedError, IdbStore } from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';

const names: string[] = [];
function dbName(tag: string): string {
  const n = `test-idb-${tag}-${Math.random().toString(36).slice(2)}`;
  names.push(n);
  return n;
}
afterEach(async () => {
  for (const n of names.splice(0)) await deleteDB(n);
});

const value = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 7 + seed) & 0xff);

describe('IdbStore', () => {
  it('rejects an empty name', () => {
    expect(() => new IdbStore({ name: '' })).toThrow(/name/);
  });

  it('round-trips chunked values and finds them from a new instance', async () => {
    const name = dbName('persist');
    const a = new IdbStore({ name, chunkBytes: 1000 });
    await Promise.all([
      a.put('big', value(4500, 1)),
      a.put('small', value(10, 2)),
      a.put('empty', new Uint8Array(0)),
    ]);
    await a.put('big2', value(2500, 3));
    await a.put('big2', value(700, 4)); // shrinks from 3 chunks to 1
    expect(await a.delete('small')).toBe(true);
    expect(await a.delete('small')).toBe(false);
    await a.close();
    const b = new IdbStore({ name, chunkBytes: 1000 });
    expect(await b.get('big')).toEqual(value(4500, 1));
    expect(await b.get('big2')).toEqual(value(700, 4));
    expect(await b.get('empty')).toEqual(new Uint8Array(0));
    expect(await b.get('small')).toBeUndefined();
    expect((await b.keys()).sort()).toEqual(['big', 'big2', 'empty']);
    expect(await b.usage()).toMatchObject({ bytes: 5200, entries: 3 });
    await b.close();
  });
});

// Another tab deletes the database while the store is open: the store lets go of its
// connection (the delete is not blocked), a read after it finds nothing (never stale
// bytes), and the store reopens a fresh database for the next write. Reads in flight
// when the store closes end with their value or a ClosedError, not a hang.
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
