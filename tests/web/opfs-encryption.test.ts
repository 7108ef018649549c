import { checksum } from '@medfusion/core';
import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { contains, newKey, pattern } from './encryptionFixtures.js';
import { dirHandle, rawFiles, records } from './fixtures/opfsRaw';

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

  it('refuses a key of another algorithm, naming AES-GCM', async () => {
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    expect(() => new OpfsStore({ dir: 'x', encryptionKey: hmac })).toThrow(/AES-GCM/);
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
