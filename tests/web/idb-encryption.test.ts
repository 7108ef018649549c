import { IdbStore, StoreError } from '@medfusion/web';
import { deleteDB, openDB } from 'idb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contains, newKey, pattern } from './encryptionFixtures.js';

const names: string[] = [];
function dbName(tag: string): string {
  const n = `test-idb-enc-${tag}-${Math.random().toString(36).slice(2)}`;
  names.push(n);
  return n;
}
afterEach(async () => {
  for (const n of names.splice(0)) await deleteDB(n);
});

/** Every raw chunk record of the database, by key. */
async function rawChunks(name: string): Promise<Map<string, Uint8Array>> {
  const db = await openDB(name);
  const tx = db.transaction('data');
  const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
  db.close();
  const out = new Map<string, Uint8Array>();
  keys.forEach((k, i) => {
    out.set(JSON.stringify(k), values[i] as Uint8Array);
  });
  return out;
}

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
  it('round-trips with a key, and no plaintext reaches IndexedDB', async () => {
    const name = dbName('rt');
    const key = await newKey();
    const a = new IdbStore({ name, encryptionKey: key });
    const v = pattern(150_000);
    await a.put('ds@1/0', v);
    expect(await a.get('ds@1/0')).toEqual(v);
    await a.close();
    const raw = await rawChunks(name);
    expect(raw.size).toBe(1);
    const needle = new TextEncoder().encode('PATIENT-PIXELS');
    for (const b of raw.values()) {
      expect(b.length).toBe(150_000 + 29); // version, nonce, tag
      expect(contains(b, needle)).toBe(false);
    }
    const b = new IdbStore({ name, encryptionKey: key });
    expect(await b.get('ds@1/0')).toEqual(v);
    await b.close();
  });

  it('reads a record under the wrong key as a counted miss, never its bytes', async () => {
    const name = dbName('wrong');
    const a = new IdbStore({ name, encryptionKey: await newKey() });
    await a.put('k', pattern(1000));
    await a.close();
    const b = new IdbStore({ name, encryptionKey: await newKey() });
    expect(await b.get('k')).toBeUndefined();
    expect((await b.usage()).undecryptable).toBe(1);
    expect(await b.has('k')).toBe(false);
    await b.close();
  });

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

  it('drops plain records when given a key; refuses an encrypted store without one', async () => {
    const name = dbName('mixed');
    const plain = new IdbStore({ name });
    await plain.put('p', pattern(100));
    await plain.close();
    const key = await newKey();
    const enc = new IdbStore({ name, encryptionKey: key });
    expect(await enc.get('p')).toBeUndefined();
    expect((await enc.usage()).plainDropped).toBe(1);
    await enc.put('e', pattern(100));
    await enc.close();
    const again = new IdbStore({ name });
    const err = await again.get('e').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('ENCRYPTION_KEY_REQUIRED');
    expect((err as Error).message).toMatch(/encryptionKey/);
    await again.close();
  });

  it('rotates: re-encrypts under the new key on read, or drops', async () => {
    const name = dbName('rotate');
    const oldKey = await newKey();
    const a = new IdbStore({ name, encryptionKey: oldKey });
    await a.put('r', pattern(3000));
    await a.put('d', pattern(3000));
    await a.close();
    const newer = await newKey();
    const b = new IdbStore({ name, encryptionKey: newer, previousEncryptionKeys: [oldKey] });
    expect(await b.get('r')).toEqual(pattern(3000));
    expect((await b.usage()).reencrypted).toBe(1);
    await b.close();
    // 'r' now opens with the new key alone; 'd' still needs the old one
    const c = new IdbStore({ name, encryptionKey: newer });
    expect(await c.get('r')).toEqual(pattern(3000));
    await c.close();
    const d = new IdbStore({
      name,
      encryptionKey: newer,
      previousEncryptionKeys: [oldKey],
      rotation: 'drop',
    });
    expect(await d.get('d')).toBeUndefined();
    expect((await d.usage()).previousKeyDropped).toBe(1);
    expect(await d.has('d')).toBe(false);
    await d.close();
  });

  it('a quota error while re-encrypting leaves the old record: the read still returns the value', async () => {
    const name = dbName('rotate-quota');
    const oldKey = await newKey();
    const a = new IdbStore({ name, encryptionKey: oldKey });
    await a.put('r', pattern(3000));
    await a.close();
    const b = new IdbStore({
      name,
      encryptionKey: await newKey(),
      previousEncryptionKeys: [oldKey],
      quotaBytes: 3000, // less than the sealed record already stored: the rewrite is refused
    });
    expect(await b.get('r')).toEqual(pattern(3000));
    await vi.waitFor(async () => expect((await b.usage()).quotaErrors).toBeGreaterThanOrEqual(1));
    expect((await b.usage()).reencrypted).toBe(1); // tried…
    await b.close();
    // …and refused: the old record is still there, intact, and opens with the old key
    const c = new IdbStore({ name, encryptionKey: oldKey });
    expect(await c.get('r')).toEqual(pattern(3000));
    expect((await c.usage()).undecryptable).toBe(0);
    await c.close();
    // never plaintext in the database
    for (const bytes of (await rawChunks(name)).values())
      expect(contains(bytes, pattern(3000).subarray(0, 64))).toBe(false);
  });

  it('refuses keys it must not use, naming the option', async () => {
    const extractable = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 128 }, true, [
      'encrypt',
      'decrypt',
    ]);
    expect(() => new IdbStore({ name: 'x', encryptionKey: extractable })).toThrow(
      /encryptionKey must be a non-extractable/,
    );
    expect(
      () => new IdbStore({ name: 'x', encryptionKey: 'secret' as unknown as CryptoKey }),
    ).toThrow(TypeError);
    const key = await newKey();
    expect(
      () => new IdbStore({ name: 'x', encryptionKey: key, rotation: 'keep' as 'drop' }),
    ).toThrow(/rotation/);
    expect(() => new IdbStore({ name: 'x', previousEncryptionKeys: [key] })).toThrow(
      /previousEncryptionKeys applies only with encryptionKey/,
    );
  });
});
