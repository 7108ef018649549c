import { checksum } from '@medfusion/core';
import { OpfsStore, StoreError } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { contains, newKey, pattern } from './encryptionFixtures.js';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-enc-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

type Dir = FileSystemDirectoryHandle & { keys(): AsyncIterable<string> };

async function dirHandle(dir: string): Promise<Dir> {
  return (await (await navigator.storage.getDirectory()).getDirectoryHandle(dir)) as Dir;
}

/** Every file of the store's directory, with its bytes. */
async function rawFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const d = await dirHandle(dir);
  const out = new Map<string, Uint8Array>();
  for await (const name of d.keys()) {
    const file = await (await d.getFileHandle(name)).getFile();
    out.set(name, new Uint8Array(await file.arrayBuffer()));
  }
  return out;
}

interface Rec {
  at: number;
  key: string;
  keyLen: number;
  dataLen: number;
}

function records(seg: Uint8Array): Rec[] {
  const out: Rec[] = [];
  let at = 0;
  while (at + 24 <= seg.length) {
    const dv = new DataView(seg.buffer, seg.byteOffset + at, 24);
    const keyLen = dv.getUint16(6, true);
    const dataLen = dv.getUint32(8, true);
    const key = new TextDecoder().decode(seg.subarray(at + 24, at + 24 + keyLen));
    out.push({ at, key, keyLen, dataLen });
    at += 24 + keyLen + dataLen;
  }
  return out;
}

/**
 * Replace the stored (sealed) value of `key` with `f(value)` and fix the
 * record's length and checksums (xxHash32: the stores use `webAssembly:
 * false`), so only AES-GCM can tell; drop the index snapshots so the index
 * is rebuilt from the segment. A record whose length changes must be the last.
 */
async function tamper(dir: string, key: string, f: (data: Uint8Array) => Uint8Array) {
  const d = await dirHandle(dir);
  const fh = await d.getFileHandle('segment-00000001.bin');
  const seg = new Uint8Array(await (await fh.getFile()).arrayBuffer());
  const r = records(seg).find((x) => x.key === key)!;
  const start = r.at + 24 + r.keyLen;
  const data = f(seg.slice(start, start + r.dataLen));
  const out = new Uint8Array(start + data.length + (seg.length - start - r.dataLen));
  out.set(seg.subarray(0, start));
  out.set(data, start);
  out.set(seg.subarray(start + r.dataLen), start + data.length);
  const dv = new DataView(out.buffer, r.at, 24);
  dv.setUint32(8, data.length, true);
  dv.setUint16(4, dv.getUint16(4, true) & ~2, true);
  dv.setUint32(12, checksum(data), true);
  const head = new Uint8Array(16 + r.keyLen);
  head.set(out.subarray(r.at, r.at + 16));
  head.set(out.subarray(r.at + 24, r.at + 24 + r.keyLen), 16);
  dv.setUint32(16, checksum(head), true);
  const w = await fh.createWritable({ keepExistingData: false });
  await w.write(out);
  await w.close();
  for (const name of ['index-a.bin', 'index-b.bin']) await d.removeEntry(name).catch(() => {});
}

describe('OpfsStore encryption at rest', () => {
  it('round-trips with a key, and no plaintext reaches the OPFS files', async () => {
    const dir = dirName('rt');
    const key = await newKey();
    const a = new OpfsStore({ dir, encryptionKey: key });
    const v = pattern(150_000);
    await Promise.all([a.put('ds@1/0', v), a.put('ds@1/1', pattern(10))]);
    expect(await a.get('ds@1/0')).toEqual(v);
    await a.close();
    const needle = new TextEncoder().encode('PATIENT-PIXELS');
    const files = await rawFiles(dir);
    expect([...files.keys()]).toContain('segment-00000001.bin');
    for (const [, b] of files) expect(contains(b, needle)).toBe(false);
    const seg = files.get('segment-00000001.bin')!;
    expect(records(seg).map((r) => r.dataLen)).toEqual([150_000 + 29, 10 + 29]);
    const b = new OpfsStore({ dir, encryptionKey: key });
    expect(await b.get('ds@1/0')).toEqual(v);
    expect(await b.get('ds@1/1')).toEqual(pattern(10));
    await b.close();
  });

  it('reads a record under the wrong key as a counted miss, never its bytes', async () => {
    const dir = dirName('wrong');
    const a = new OpfsStore({ dir, encryptionKey: await newKey() });
    await a.put('k', pattern(1000));
    await a.close();
    const b = new OpfsStore({ dir, encryptionKey: await newKey() });
    expect(await b.get('k')).toBeUndefined();
    expect((await b.usage()).undecryptable).toBe(1);
    await b.flush();
    expect(await b.has('k')).toBe(false);
    await b.close();
  });

  it('misses on a record moved onto another sample key, a flipped byte, a truncation, an altered tag', async () => {
    const dir = dirName('tamper');
    const key = await newKey();
    const opts = { dir, encryptionKey: key, webAssembly: false };
    const a = new OpfsStore(opts);
    for (const k of ['k1', 'k2', 'k3', 'k4', 'ok']) await a.put(k, pattern(2000));
    await a.put('k5', pattern(2000)); // last: truncated below
    await a.close();
    const seg = (await rawFiles(dir)).get('segment-00000001.bin')!;
    const recs = records(seg);
    const ok = recs.find((r) => r.key === 'ok')!;
    const okSealed = seg.slice(ok.at + 26, ok.at + 26 + ok.dataLen);
    await tamper(dir, 'k1', () => okSealed.slice()); // another key's record, same key length
    await tamper(dir, 'k2', (b) => {
      b[700]! ^= 1;
      return b;
    });
    await tamper(dir, 'k3', (b) => {
      b[b.length - 1]! ^= 0x80; // the tag
      return b;
    });
    await tamper(dir, 'k4', (b) => {
      b[5]! ^= 0x10; // the nonce
      return b;
    });
    await tamper(dir, 'k5', (b) => b.slice(0, b.length - 100));
    const b = new OpfsStore(opts);
    for (const k of ['k1', 'k2', 'k3', 'k4', 'k5']) expect(await b.get(k)).toBeUndefined();
    expect(await b.get('ok')).toEqual(pattern(2000));
    const u = await b.usage();
    expect(u.undecryptable).toBe(5);
    expect(u.corruptDropped).toBe(0);
    await b.close();
  });

  it('drops plain records when given a key; refuses an encrypted store without one', async () => {
    const dir = dirName('mixed');
    const plain = new OpfsStore({ dir });
    await plain.put('p', pattern(100));
    await plain.close();
    const key = await newKey();
    const enc = new OpfsStore({ dir, encryptionKey: key });
    expect(await enc.get('p')).toBeUndefined();
    expect((await enc.usage()).plainDropped).toBe(1);
    await enc.put('e', pattern(100));
    await enc.close();
    const again = new OpfsStore({ dir });
    const err = await again.get('e').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('ENCRYPTION_KEY_REQUIRED');
    expect((err as Error).message).toMatch(/encryptionKey/);
    await again.close();
  });

  it('rotates: re-encrypts under the new key on read, or drops', async () => {
    const dir = dirName('rotate');
    const oldKey = await newKey();
    const a = new OpfsStore({ dir, encryptionKey: oldKey });
    await a.put('r', pattern(3000));
    await a.put('d', pattern(3000));
    await a.close();
    const newer = await newKey();
    const b = new OpfsStore({ dir, encryptionKey: newer, previousEncryptionKeys: [oldKey] });
    expect(await b.get('r')).toEqual(pattern(3000));
    expect((await b.usage()).reencrypted).toBe(1);
    await b.close();
    const c = new OpfsStore({ dir, encryptionKey: newer });
    expect(await c.get('r')).toEqual(pattern(3000));
    await c.close();
    const d = new OpfsStore({
      dir,
      encryptionKey: newer,
      previousEncryptionKeys: [oldKey],
      rotation: 'drop',
    });
    expect(await d.get('d')).toBeUndefined();
    expect((await d.usage()).previousKeyDropped).toBe(1);
    await d.flush();
    expect(await d.has('d')).toBe(false);
    await d.close();
  });

  it('a batch of sealed reads gives each key its own value, also through a previous key', async () => {
    // The worker reads the sealed values of a batch into one reused buffer (WebCrypto copies
    // what it opens): a value opened after another read, by a previous key, must not see the
    // next record's bytes.
    const dir = dirName('batch');
    const oldKey = await newKey();
    const value = (i: number) => new Uint8Array(5000).fill(i + 1);
    const a = new OpfsStore({ dir, encryptionKey: oldKey });
    await Promise.all(Array.from({ length: 24 }, (_, i) => a.put(`k${i}`, value(i))));
    await a.close();
    for (const keys of [
      { encryptionKey: oldKey },
      { encryptionKey: await newKey(), previousEncryptionKeys: [oldKey] },
    ]) {
      const b = new OpfsStore({ dir, ...keys });
      const got = await Promise.all(Array.from({ length: 24 }, (_, i) => b.get(`k${i}`)));
      for (const [i, v] of got.entries()) expect(v, `k${i}`).toEqual(value(i));
      expect((await b.usage()).undecryptable).toBe(0);
      await b.close();
    }
  });

  it('refuses keys it must not use, naming the option', async () => {
    const extractable = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 128 }, true, [
      'encrypt',
      'decrypt',
    ]);
    expect(() => new OpfsStore({ dir: 'x', encryptionKey: extractable })).toThrow(
      /encryptionKey must be a non-extractable/,
    );
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    expect(() => new OpfsStore({ dir: 'x', encryptionKey: hmac })).toThrow(/AES-GCM/);
    const key = await newKey();
    expect(
      () => new OpfsStore({ dir: 'x', encryptionKey: key, rotation: 'keep' as 'drop' }),
    ).toThrow(/rotation/);
  });

  it('a quota error while re-encrypting leaves the old record: the read still returns the value', async () => {
    const dir = dirName('rotate-quota');
    const oldKey = await newKey();
    const a = new OpfsStore({ dir, encryptionKey: oldKey });
    await a.put('r', pattern(3000));
    await a.close();
    const b = new OpfsStore({
      dir,
      encryptionKey: await newKey(),
      previousEncryptionKeys: [oldKey],
      quotaBytes: 4000, // the re-encrypted copy does not fit next to the old one
    });
    expect(await b.get('r')).toEqual(pattern(3000));
    await b.flush();
    const u = await b.usage();
    expect(u.reencrypted).toBe(1); // tried…
    expect(u.quotaErrors).toBeGreaterThanOrEqual(1); // …and refused by the quota
    await b.close();
    const c = new OpfsStore({ dir, encryptionKey: oldKey });
    expect(await c.get('r')).toEqual(pattern(3000)); // still the old, intact record
    await c.close();
  });

  it('seals on the calling thread too (worker: false, the async file API)', async () => {
    const dir = dirName('noworker');
    const key = await newKey();
    const a = new OpfsStore({ dir, encryptionKey: key, worker: false });
    await a.put('k', pattern(5000));
    expect(await a.get('k')).toEqual(pattern(5000));
    await a.close();
    const needle = new TextEncoder().encode('PATIENT-PIXELS');
    for (const b of (await rawFiles(dir)).values()) expect(contains(b, needle)).toBe(false);
    const b = new OpfsStore({ dir, encryptionKey: await newKey(), worker: false });
    expect(await b.get('k')).toBeUndefined();
    expect((await b.usage()).undecryptable).toBe(1);
    await b.close();
  });
  it('a batch of sealed puts spanning segments is whole on disk: the index rebuilt from the segments reads every value', async () => {
    const cases = [
      { backend: 'auto', webAssembly: true },
      { backend: 'auto', webAssembly: false },
      { backend: 'async', webAssembly: true },
    ] as const;
    for (const { backend, webAssembly } of cases) {
      const dir = dirName(`span-${backend}-${webAssembly}`);
      const key = await newKey();
      const opts = { dir, encryptionKey: key, backend, webAssembly, segmentBytes: 40_000 };
      const value = (i: number) => pattern(1 + i * 4_001).map((b, j) => (j === 0 ? i : b));
      const a = new OpfsStore(opts);
      await a.put('gone', pattern(100));
      // One batch: values of every size, several to a segment and one segment after another.
      await Promise.all(Array.from({ length: 12 }, (_, i) => a.put(`ds@1/${i}`, value(i))));
      await Promise.all([a.put('ds@1/3', value(30)), a.delete('gone')]);
      await a.close();
      const files = await rawFiles(dir);
      const segments = [...files].filter(([n]) => n.startsWith('segment-'));
      expect(segments.length).toBeGreaterThan(2);
      const needle = new TextEncoder().encode('PATIENT-PIXELS');
      for (const [, seg] of segments) {
        expect(contains(seg, needle)).toBe(false);
        const recs = records(seg);
        // Records lie back to back, each as long as its header says.
        const last = recs.at(-1)!;
        expect(last.at + 24 + last.keyLen + last.dataLen).toBe(seg.length);
        if (!webAssembly) {
          for (const r of recs) {
            const dv = new DataView(seg.buffer, seg.byteOffset + r.at, 24);
            const data = seg.subarray(r.at + 24 + r.keyLen, r.at + 24 + r.keyLen + r.dataLen);
            expect(dv.getUint32(12, true)).toBe(checksum(data));
          }
        }
      }
      // Without the index snapshots, the store rebuilds its index by scanning the segments,
      // checking each record's checksum: a record written in parts must check out whole.
      const d = await dirHandle(dir);
      for (const name of ['index-a.bin', 'index-b.bin']) await d.removeEntry(name).catch(() => {});
      const b = new OpfsStore(opts);
      for (let i = 0; i < 12; i++) {
        expect(await b.get(`ds@1/${i}`), `${backend} ${webAssembly} ${i}`).toEqual(
          value(i === 3 ? 30 : i),
        );
      }
      expect(await b.get('gone')).toBeUndefined();
      const u = await b.usage();
      expect(u.corruptDropped).toBe(0);
      expect(u.undecryptable).toBe(0);
      await b.close();
    }
  });
});
