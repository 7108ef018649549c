// Hostile data, item 9: damaged IndexedDB meta records. A `null` record made the store
// unusable forever (TypeError in open()); a record with a non-numeric length made the
// byte count NaN, and the next put evicted every intact entry. Now a damaged record is
// skipped and counted (usage().corruptDropped), removed with its chunks, and never
// touches good data; a record damaged after open reads as a miss, and nothing is
// allocated for the length it claims; a chunk that is no longer bytes reads as a miss too.
import { IdbStore } from '@medfusion/web';
import { deleteDB, openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { bounded, HANG_MS, report } from './harness.js';

const names: string[] = [];
const dbName = (tag: string) => {
  const n = `hostile-idb-${tag}-${Math.random().toString(36).slice(2)}`;
  names.push(n);
  return n;
};
afterEach(async () => {
  for (const n of names.splice(0)) await deleteDB(n);
});

const value = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 7 + seed) & 0xff);

/** Write raw records behind the store's back, as a damaged disk or another program would. */
async function damage(name: string, meta: [IDBValidKey, unknown][], data: [unknown, unknown][]) {
  const db = await openDB(name, 1);
  const tx = db.transaction(['meta', 'data'], 'readwrite');
  for (const [k, v] of meta) await tx.objectStore('meta').put(v, k);
  for (const [k, v] of data) await tx.objectStore('data').put(v, k as IDBValidKey);
  await tx.done;
  db.close();
}

describe('hostile IndexedDB records', () => {
  it('damaged meta records are skipped and reported; byte accounting stays exact; good entries stay', async (ctx) => {
    const name = dbName('meta');
    const a = new IdbStore({ name, maxBytes: 4000 });
    for (const [k, seed] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      await a.put(k, value(1000, seed));
    await a.close();
    const damaged: [IDBValidKey, unknown][] = [
      ['null', null],
      ['text', 'garbage'],
      ['nan', { len: 'x', sum: 1, chunks: 1, seq: Number.NaN }],
      ['negative', { len: -5, sum: 1, chunks: 1, seq: 9 }],
      ['huge', { len: 2 ** 40, sum: 0, chunks: 1, seq: 10 }],
      ['no-seq', { len: 10, sum: 0, chunks: 1 }],
      [42, { len: 10, sum: 0, chunks: 1, seq: 11 }],
    ];
    await damage(name, damaged, [[['huge', 0], new Uint8Array(10)]]);

    const b = new IdbStore({ name, maxBytes: 4000 });
    const { value: usage, ms } = await bounded('open with damaged records', HANG_MS, () =>
      b.usage(),
    );
    expect(usage).toMatchObject({ bytes: 3000, entries: 3, corruptDropped: damaged.length });
    expect(Number.isFinite(usage.bytes)).toBe(true);
    expect((await b.keys()).sort()).toEqual(['a', 'b', 'c']);
    // The next put fits beside the intact entries: nothing is evicted.
    await b.put('d', value(1000, 4));
    expect(await b.usage()).toMatchObject({ bytes: 4000, entries: 4, evictions: 0 });
    for (const [k, seed] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ] as const)
      expect(await b.get(k)).toEqual(value(1000, seed));
    await b.close();
    // The damaged records are gone for good: a third open finds none.
    const c = new IdbStore({ name, maxBytes: 4000 });
    expect(await c.usage()).toMatchObject({ bytes: 4000, entries: 4, corruptDropped: 0 });
    await c.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: `IndexedDB: ${damaged.length} damaged meta records beside 3 good entries`,
      figures: { ms: Math.round(ms), skipped: usage.corruptDropped, evictedGood: 0 },
    });
  });

  it('a record damaged after open reads as a miss, allocating nothing for its claimed length', async () => {
    const name = dbName('late');
    const store = new IdbStore({ name });
    await store.put('x', value(100, 1));
    await store.put('y', value(100, 2));
    // x: meta claims 1 TiB and its data chunk is replaced; y: meta destroyed, data intact.
    await damage(
      name,
      [['x', { len: 2 ** 40, sum: 0, chunks: 2, seq: 1 }]],
      [[['x', 0], new Uint8Array(10)]],
    );
    await damage(name, [['y', null]], []);
    const { value: got } = await bounded('get', HANG_MS, () =>
      Promise.all([store.get('x'), store.get('y')]),
    );
    // x is a miss, reported; y's bytes still match the length and checksum this store wrote,
    // so the one-request read serves them (never bytes it cannot verify).
    expect(got).toEqual([undefined, value(100, 2)]);
    expect(await store.usage()).toMatchObject({ corruptDropped: 1, entries: 1, bytes: 100 });
    await store.put('z', value(100, 3));
    expect(await store.get('z')).toEqual(value(100, 3));
    await store.close();
  });

  it('a chunk replaced by a non-byte value reads as a miss, even when its numbers match', async () => {
    const name = dbName('type');
    const store = new IdbStore({ name });
    await store.put('a', value(10, 4));
    await store.put('b', value(100, 5));
    // The one-request read knows each length and checksum: a plain array holding a's very
    // numbers has both, and a string of b's length has the length; neither is bytes.
    await damage(
      name,
      [],
      [
        [['a', 0], Array.from(value(10, 4))],
        [['b', 0], 'b'.repeat(100)],
      ],
    );
    const { value: got } = await bounded('get', HANG_MS, () =>
      Promise.all([store.get('a'), store.get('b')]),
    );
    expect(got).toEqual([undefined, undefined]);
    expect(await store.usage()).toMatchObject({ corruptDropped: 2, entries: 0, bytes: 0 });
    await store.close();
  });
});
