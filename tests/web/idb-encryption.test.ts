import { IdbStore } from '@medfusion/web';
import { deleteDB, openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { newKey, pattern } from './encryptionFixtures.js';

const names: string[] = [];
function dbName(tag: string): string {
  const n = `test-idb-enc-${tag}-${Math.random().toString(36).slice(2)}`;
  names.push(n);
  return n;
}
afterEach(async () => {
  for (const n of names.splice(0)) await deleteDB(n);
});

/** Rewrite chunk 0 of `key` (and its meta's length/checksum, so only the GCM tag can tell). */
async function rewrite(name: string, key: string, f: (b: Uint8Array) => Uint8Array) {
  const db = await openDB(name);
  const before = (await db.get('data', [key, 0])) as Uint8Array;
  const after = f(before.slice());
  const meta = await db.get('meta', key);
  const { checksum } = await import('@medfusion/core');
  await db.put('data', after, [key, 0]);
  await db.put('meta', { ...meta, len: after.length, sum: checksum(after) }, key);
  db.close();
}

describe('IdbStore encryption at rest', () => {
  it('misses on a record copied onto another sample key, a flipped byte, a truncation, an altered tag', async () => {
    const name = dbName('tamper');
    const key = await newKey();
    const a = new IdbStore({ name, encryptionKey: key });
    for (const k of ['moved', 'flip', 'trunc', 'tag', 'ok']) await a.put(k, pattern(2000));
    await a.put('other', new Uint8Array(2000).fill(9));
    await a.close();
    const db = await openDB(name);
    const other = (await db.get('data', ['other', 0])) as Uint8Array;
    db.close();
    await rewrite(name, 'moved', () => other.slice());
    await rewrite(name, 'flip', (b) => {
      b[500]! ^= 1;
      return b;
    });
    await rewrite(name, 'trunc', (b) => b.subarray(0, b.length - 100).slice());
    await rewrite(name, 'tag', (b) => {
      b[b.length - 1]! ^= 0x80;
      return b;
    });
    const b = new IdbStore({ name, encryptionKey: key });
    for (const k of ['moved', 'flip', 'trunc', 'tag']) expect(await b.get(k)).toBeUndefined();
    expect(await b.get('ok')).toEqual(pattern(2000));
    expect(await b.get('other')).toEqual(new Uint8Array(2000).fill(9));
    expect((await b.usage()).undecryptable).toBe(4);
    await b.close();
  });
});
