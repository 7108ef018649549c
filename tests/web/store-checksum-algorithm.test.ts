import { checksum } from '@medfusion/core';
import { IdbStore, OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

// Values are sealed with xxHash64 (WebAssembly) by default and with xxHash32 when
// `webAssembly: false`; each entry keeps its own checksum, so both kinds coexist on disk.

const dirs: string[] = [];
const dbs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
  for (const n of dbs.splice(0)) indexedDB.deleteDatabase(n);
});

function newDir(): string {
  const dir = `test-checksum-alg-${Math.random().toString(36).slice(2)}`;
  dirs.push(dir);
  return dir;
}

function newDb(): string {
  const name = `test-checksum-alg-${Math.random().toString(36).slice(2)}`;
  dbs.push(name);
  return name;
}

/** The first record header of segment 1 of `dir`: its flags and value checksum. */
async function firstHeader(dir: string): Promise<{ flags: number; dataSum: number }> {
  const d = await (await navigator.storage.getDirectory()).getDirectoryHandle(dir);
  const file = await (await d.getFileHandle('segment-00000001.bin')).getFile();
  const dv = new DataView(await file.slice(0, 24).arrayBuffer());
  return { flags: dv.getUint16(4, true), dataSum: dv.getUint32(12, true) };
}

async function flipByte(dir: string, at: number): Promise<void> {
  const d = await (await navigator.storage.getDirectory()).getDirectoryHandle(dir);
  const fh = await d.getFileHandle('segment-00000001.bin');
  const b = new Uint8Array(await (await fh.getFile()).slice(at, at + 1).arrayBuffer());
  const w = await fh.createWritable({ keepExistingData: true });
  await w.write({ type: 'write', position: at, data: new Uint8Array([b[0]! ^ 0x01]) });
  await w.close();
}

const abc = new TextEncoder().encode('abc');

/**
 * Store `k` with a default store (xxHash64), then open the same place with
 * `webAssembly: false` and read it: a miss, counted as dropped. Returns that store, open.
 */
async function readWithoutWasm<S extends OpfsStore | IdbStore>(
  open: (webAssembly: boolean) => S,
): Promise<S> {
  const a = open(true);
  await a.put('k', new Uint8Array(2000).fill(9));
  await a.close();
  const b = open(false);
  expect(await b.get('k')).toBeUndefined();
  expect((await b.usage()).corruptDropped).toBe(1);
  return b;
}

describe('OpfsStore value checksums', () => {
  it('seals with xxHash64 by default: the record flag and the low 32 bits of XXH64("abc")', async () => {
    const dir = newDir();
    const s = new OpfsStore({ dir });
    await s.put('a', abc);
    expect((await s.usage()).checksumAlgorithm).toBe('xxh64');
    await s.close();
    // XXH64("abc", seed 0) = 0x44bc2cf5ad770999 (the xxHash reference vectors).
    expect(await firstHeader(dir)).toEqual({ flags: 2, dataSum: 0xad770999 });
  });

  it('seals with xxHash32 when webAssembly is false, and a default store reads those entries', async () => {
    const dir = newDir();
    const old = new OpfsStore({ dir, webAssembly: false });
    await old.put('a', abc);
    await old.put('b', new Uint8Array(150_000).fill(7));
    expect((await old.usage()).checksumAlgorithm).toBe('xxh32');
    await old.close();
    expect(await firstHeader(dir)).toEqual({ flags: 0, dataSum: checksum(abc) });
    const s = new OpfsStore({ dir });
    expect(await s.get('a')).toEqual(abc);
    expect(await s.get('b')).toEqual(new Uint8Array(150_000).fill(7));
    expect((await s.usage()).corruptDropped).toBe(0);
    await s.close();
  });

  it('a flipped value byte of an xxHash32 entry is a miss for a default store', async () => {
    const dir = newDir();
    const old = new OpfsStore({ dir, webAssembly: false });
    await old.put('k', new Uint8Array(1000).fill(3));
    await old.close();
    await flipByte(dir, 24 + 1 + 500);
    const s = new OpfsStore({ dir });
    expect(await s.get('k')).toBeUndefined();
    expect((await s.usage()).corruptDropped).toBe(1);
    await s.close();
  });

  it('a store that cannot compute xxHash64 reads such an entry as a miss, then stores it again', async () => {
    const dir = newDir();
    const b = await readWithoutWasm((webAssembly) => new OpfsStore({ dir, webAssembly }));
    await b.put('k', new Uint8Array(2000).fill(4));
    expect(await b.get('k')).toEqual(new Uint8Array(2000).fill(4));
    await b.close();
    const c = new OpfsStore({ dir });
    expect(await c.get('k')).toEqual(new Uint8Array(2000).fill(4));
    await c.close();
  });

  it('rejects a webAssembly option that is not a boolean, naming it', () => {
    expect(() => new OpfsStore({ dir: 'x', webAssembly: 'yes' as never })).toThrow(
      /webAssembly must be a boolean, got "yes"/,
    );
  });
});

describe('IdbStore value checksums', () => {
  it('seals with xxHash64 by default and reads entries sealed with xxHash32', async () => {
    const name = newDb();
    const old = new IdbStore({ name, webAssembly: false });
    await old.put('a', abc);
    expect((await old.usage()).checksumAlgorithm).toBe('xxh32');
    await old.close();
    const s = new IdbStore({ name });
    expect(await s.get('a')).toEqual(abc);
    await s.put('b', new Uint8Array(150_000).fill(5));
    expect(await s.get('b')).toEqual(new Uint8Array(150_000).fill(5));
    const usage = await s.usage();
    expect(usage.checksumAlgorithm).toBe('xxh64');
    expect(usage.corruptDropped).toBe(0);
    await s.close();
  });

  it('a store that cannot compute xxHash64 reads such an entry as a miss and drops it', async () => {
    const name = newDb();
    const b = await readWithoutWasm((webAssembly) => new IdbStore({ name, webAssembly }));
    expect(await b.has('k')).toBe(false);
    await b.close();
  });

  it('rejects a webAssembly option that is not a boolean, naming it', () => {
    expect(() => new IdbStore({ name: 'x', webAssembly: 1 as never })).toThrow(
      /webAssembly must be a boolean, got 1/,
    );
  });
});
