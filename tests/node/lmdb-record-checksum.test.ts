// The checksum LmdbStore keeps beside each plain value is the CRC-32 its docs name (IEEE, zlib's
// and PNG's), checked against Node's own zlib.crc32 on the record as LMDB holds it: stores
// written before the store computed it with @node-rs/crc32 (zlib.crc32 then) read the same.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { LmdbStore } from '@medfusion/node';
import { open } from 'lmdb';
import { afterEach, expect, it } from 'vitest';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every record of the store's data database, raw, the store closed. */
async function records(at: string): Promise<Map<string, Buffer>> {
  const file = readdirSync(at).find((n) => /^data-\d+\.mdb$/.test(n))!;
  const env = open({ path: join(at, file), maxDbs: 4, compression: false, readOnly: true });
  const data = env.openDB<Uint8Array, string>({ name: 'data', encoding: 'binary' });
  const out = new Map<string, Buffer>();
  for (const { key, value } of data.getRange({})) out.set(key, Buffer.from(value));
  await env.close();
  return out;
}

it('keeps the zlib CRC-32 of each plain value in its record, for sizes 0 to 1 MiB', async () => {
  dir = mkdtempSync(join(tmpdir(), 'medfusion-lmdb-crc-'));
  const values = new Map(
    [0, 1, 63, 64, 4096, 150 * 1024 + 7, 1 << 20].map((n) => [`ds@1/${n}`, randomBytes(n)]),
  );
  const store = new LmdbStore({ dir });
  for (const [k, v] of values) await store.put(k, v);
  await store.close();

  const raw = await records(dir);
  expect([...raw.keys()].sort()).toEqual([...values.keys()].sort());
  for (const [k, v] of values) {
    const rec = raw.get(k)!;
    expect(rec.subarray(12).equals(v), k).toBe(true);
    expect(rec.readUInt32LE(8), k).toBe(crc32(v));
  }
});

it('reads a value whose record carries the zlib CRC-32, and misses one whose sum is off by a bit', async () => {
  dir = mkdtempSync(join(tmpdir(), 'medfusion-lmdb-crc-'));
  const value = randomBytes(150 * 1024);
  const store = new LmdbStore({ dir });
  await store.put('ds@1/a', value);
  await store.put('ds@1/b', value);
  await store.close();

  // Rewrite b's sum one bit off (what a bad checksum implementation would have written).
  const file = readdirSync(dir).find((n) => /^data-\d+\.mdb$/.test(n))!;
  const env = open({ path: join(dir, file), maxDbs: 4, compression: false });
  const data = env.openDB<Uint8Array, string>({ name: 'data', encoding: 'binary' });
  const rec = Buffer.from(data.get('ds@1/b')!);
  rec.writeUInt32LE((crc32(value) ^ 1) >>> 0, 8);
  await data.put('ds@1/b', rec);
  await env.close();

  const again = new LmdbStore({ dir });
  expect(Buffer.from((await again.get('ds@1/a'))!).equals(value)).toBe(true);
  expect(await again.get('ds@1/b')).toBeUndefined();
  expect((await again.usage()).corruptDropped).toBe(1);
  await again.close();
});
