// The checksum LmdbStore keeps beside each plain value is the CRC-32 its docs name (IEEE, zlib's
// and PNG's), checked against Node's own zlib.crc32: the store's records carry it, and a record
// written here with zlib.crc32 (as the store wrote them before it computed the CRC with
// @node-rs/crc32) reads back; one whose sum is a bit off is a miss.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { LmdbStore } from '@medfusion/node';
import { afterEach, expect, it } from 'vitest';
import { openRawData } from './lmdbRaw';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A plain record as the store's docs give it: flags 0, time, zlib's CRC-32, data (`sum` xor-ed). */
function zlibRecord(value: Uint8Array, flipSum = 0): Buffer {
  const rec = Buffer.alloc(12 + value.length);
  rec.writeUInt32LE(Math.floor(Date.now() / 1000), 4);
  rec.writeUInt32LE((crc32(value) ^ flipSum) >>> 0, 8);
  rec.set(value, 12);
  return rec;
}

it('keeps the zlib CRC-32 of each plain value in its record, for sizes 0 to 1 MiB', async () => {
  dir = mkdtempSync(join(tmpdir(), 'medfusion-lmdb-crc-'));
  const values = new Map(
    [0, 1, 63, 64, 4096, 150 * 1024 + 7, 1 << 20].map((n) => [`ds@1/${n}`, randomBytes(n)]),
  );
  const store = new LmdbStore({ dir });
  for (const [k, v] of values) await store.put(k, v);
  await store.close();

  const { data, close } = openRawData(dir);
  const raw = new Map<string, Buffer>();
  for (const { key, value } of data.getRange({})) raw.set(key, Buffer.from(value));
  await close();
  expect([...raw.keys()].sort()).toEqual([...values.keys()].sort());
  for (const [k, v] of values) {
    const rec = raw.get(k)!;
    expect(rec.subarray(12).equals(v), k).toBe(true);
    expect(rec.readUInt32LE(8), k).toBe(crc32(v));
  }
});

it('reads a record written with the zlib CRC-32, and misses one whose sum is off by a bit', async () => {
  dir = mkdtempSync(join(tmpdir(), 'medfusion-lmdb-crc-'));
  const value = randomBytes(150 * 1024);
  const store = new LmdbStore({ dir });
  await store.put('ds@1/a', value); // the store's files, and its key in its index
  await store.put('ds@1/b', value);
  await store.close();

  // Both records rewritten by this test, not by the store: a with zlib's sum, b one bit off.
  const { data, close } = openRawData(dir);
  await data.put('ds@1/a', zlibRecord(value));
  await data.put('ds@1/b', zlibRecord(value, 1));
  await close();

  const again = new LmdbStore({ dir });
  expect(Buffer.from((await again.get('ds@1/a'))!).equals(value)).toBe(true);
  expect(await again.get('ds@1/b')).toBeUndefined();
  expect((await again.usage()).corruptDropped).toBe(1);
  await again.close();
});
