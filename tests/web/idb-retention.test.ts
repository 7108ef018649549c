import { ManualClock } from '@medfusion/core';
import { IdbStore } from '@medfusion/web';
import { deleteDB, openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { estimateShowsFreedSpace } from './estimateProbe';

const names: string[] = [];
function dbName(tag: string): string {
  const n = `test-idb-ret-${tag}-${Math.random().toString(36).slice(2)}`;
  names.push(n);
  return n;
}
afterEach(async () => {
  for (const n of names.splice(0)) await deleteDB(n);
});

/** Keys of the raw meta and chunk records. */
async function rawKeys(name: string): Promise<{ meta: string[]; data: string[] }> {
  const db = await openDB(name);
  const meta = (await db.getAllKeys('meta')).map(String);
  const data = (await db.getAllKeys('data')).map((k) => JSON.stringify(k));
  db.close();
  return { meta: meta.sort(), data: data.sort() };
}

const value = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 7 + seed) & 0xff);

// WebKitGTK's estimate() grows with writes but does not drop when files or records go (checked
// with the platform's own OPFS API): there the "gives the space back" case cannot be seen.
const freedSpaceShows = await estimateShowsFreedSpace();

describe('IdbStore retention and forget', () => {
  it('refuses a maxAge that is not a positive number, naming it', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new IdbStore({ name: 'x', maxAge: bad })).toThrow(RangeError);
      expect(() => new IdbStore({ name: 'x', maxAge: bad })).toThrow(/maxAge/);
    }
    expect(() => new IdbStore({ name: 'x', maxAge: 10, clock: {} as ManualClock })).toThrow(
      /clock/,
    );
  });

  it('misses records older than maxAge and deletes them on read, by a sweep, and on open', async () => {
    const name = dbName('age');
    const clock = new ManualClock();
    await clock.advance(1_000_000);
    const a = new IdbStore({ name, maxAge: 10_000, clock });
    await a.put('ds@1/0', value(100, 1));
    await a.put('ds@1/1', value(100, 2));
    await clock.advance(9_000);
    await a.put('ds@1/2', value(100, 3)); // younger
    expect(await a.get('ds@1/0')).toEqual(value(100, 1));
    await clock.advance(2_000); // 0 and 1 are 11 s old, 2 is 2 s old
    expect(await a.get('ds@1/0')).toBeUndefined();
    expect((await a.usage()).expired).toBe(1);
    // the periodic sweep (every min(maxAge, 60 s)) deletes 1 and 2 without a read
    await clock.advance(10_000);
    await expect.poll(async () => (await rawKeys(name)).meta).toEqual([]);
    expect((await a.usage()).expired).toBe(3);
    await a.put('ds@1/3', value(100, 4));
    await a.close();
    // a later visit: 3 is 11 s old now, deleted when the store opens
    await clock.advance(11_000);
    const b = new IdbStore({ name, maxAge: 10_000, clock });
    expect(await b.keys()).toEqual([]);
    expect(await rawKeys(name)).toEqual({ meta: [], data: [] });
    expect((await b.usage()).expired).toBe(1);
    await b.close();
  });

  it('forgets one data set for real, also for another instance; an unknown one is a no-op', async () => {
    const name = dbName('forget');
    const a = new IdbStore({ name, chunkBytes: 1000 });
    const other = new IdbStore({ name, chunkBytes: 1000 });
    await a.put('xray@1/0', value(2500, 1));
    await a.put('xray@1/1', value(10, 2));
    await a.put('xray@10/0', value(10, 3)); // another data set sharing the prefix's start
    await a.put('ct@2/0', value(10, 4));
    expect(await other.get('xray@1/1')).toEqual(value(10, 2));
    expect(await other.forget('xray@1')).toBe(2);
    expect(await other.forget('unknown@9')).toBe(0);
    expect(await rawKeys(name)).toEqual({
      meta: ['ct@2/0', 'xray@10/0'],
      data: ['["ct@2/0",0]', '["xray@10/0",0]'],
    });
    // the first instance, mid-training, misses instead of returning anything
    expect(await a.get('xray@1/0')).toBeUndefined();
    expect(await a.get('xray@1/1')).toBeUndefined();
    expect(await a.get('ct@2/0')).toEqual(value(10, 4));
    expect(await a.forgetAll()).toBe(2);
    expect(await rawKeys(name)).toEqual({ meta: [], data: [] });
    await a.close();
    await other.close();
  });

  it.skipIf(!freedSpaceShows)(
    'gives the space back: navigator.storage.estimate() drops after forget (needs an estimate() that shows freed space)',
    async () => {
      const name = dbName('space');
      const a = new IdbStore({ name, maxBytes: 2 ** 28 });
      const big = new Uint8Array(2 ** 20).map(() => (Math.random() * 256) | 0);
      for (let i = 0; i < 24; i++) await a.put(`big@1/${i}`, big);
      const before = (await navigator.storage.estimate()).usage!;
      expect(await a.forget('big@1')).toBe(24);
      await a.close();
      const after = (await navigator.storage.estimate()).usage!;
      expect(before - after).toBeGreaterThan(20 * 2 ** 20);
    },
  );

  it('encrypted records keep their write time, also when rotation re-encrypts them', async () => {
    const name = dbName('enc');
    const clock = new ManualClock();
    await clock.advance(1e12);
    const gen = () =>
      crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const oldKey = await gen();
    const a = new IdbStore({ name, maxAge: 10_000, clock, encryptionKey: oldKey });
    await a.put('ds@1/0', new Uint8Array(100).fill(7));
    await clock.advance(5_000);
    expect(await a.get('ds@1/0')).toEqual(new Uint8Array(100).fill(7));
    await a.close();
    const newKey = await gen();
    const opts = {
      name,
      maxAge: 10_000,
      clock,
      encryptionKey: newKey,
      previousEncryptionKeys: [oldKey],
    };
    const b = new IdbStore(opts);
    expect(await b.get('ds@1/0')).toEqual(new Uint8Array(100).fill(7));
    expect((await b.usage()).reencrypted).toBe(1);
    await b.close();
    const c = new IdbStore({ name, maxAge: 10_000, clock, encryptionKey: newKey });
    expect(await c.get('ds@1/0')).toEqual(new Uint8Array(100).fill(7)); // re-encrypted
    await clock.advance(7_000); // 12 s after the first write: expired, re-encryption or not
    expect(await c.get('ds@1/0')).toBeUndefined();
    await c.close();
  });
});
