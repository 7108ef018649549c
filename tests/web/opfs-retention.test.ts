import { ManualClock } from '@medfusion/core';
import { createCachedDataset, fromArray, OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { contains } from './encryptionFixtures.js';
import { estimateShowsFreedSpace } from './estimateProbe';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-ret-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

type Dir = FileSystemDirectoryHandle & { keys(): AsyncIterable<string> };

/** The store directory's files and their bytes. */
async function files(dir: string): Promise<Map<string, Uint8Array>> {
  const d = (await (await navigator.storage.getDirectory()).getDirectoryHandle(dir)) as Dir;
  const out = new Map<string, Uint8Array>();
  for await (const name of d.keys()) {
    out.set(
      name,
      new Uint8Array(await (await (await d.getFileHandle(name)).getFile()).arrayBuffer()),
    );
  }
  return out;
}
const segments = async (dir: string) =>
  [...(await files(dir)).keys()].filter((n) => n.startsWith('segment-')).sort();

function text(word: string, n: number): Uint8Array {
  const w = new TextEncoder().encode(word);
  return new Uint8Array(n).map((_, i) => w[i % w.length]!);
}
async function anywhere(dir: string, word: string): Promise<boolean> {
  const needle = new TextEncoder().encode(word);
  for (const b of (await files(dir)).values()) if (contains(b, needle)) return true;
  return false;
}

// WebKitGTK's estimate() grows with writes but does not drop when files or records go (checked
// with the platform's own OPFS API): there the "gives the space back" case cannot be seen.
const freedSpaceShows = await estimateShowsFreedSpace();

describe('OpfsStore retention and forget', () => {
  it('refuses a maxAge that is not a positive number, naming it', () => {
    for (const bad of [0, -5, Number.NaN]) {
      expect(() => new OpfsStore({ dir: 'x', maxAge: bad })).toThrow(RangeError);
      expect(() => new OpfsStore({ dir: 'x', maxAge: bad })).toThrow(/maxAge/);
    }
  });

  it('misses records older than maxAge; deletes their files by a sweep and on open', async () => {
    const dir = dirName('age');
    const clock = new ManualClock();
    await clock.advance(1e12); // ms since the epoch, as a wall clock gives
    const a = new OpfsStore({ dir, maxAge: 10_000, clock });
    await a.put('ds@1/0', text('OLD-PIXELS', 1000));
    await a.put('ds@1/1', text('OLD-PIXELS', 1000));
    await clock.advance(9_000);
    expect(await a.get('ds@1/0')).toEqual(text('OLD-PIXELS', 1000));
    await clock.advance(3_000); // 12 s old: past maxAge (ages are kept in whole seconds)
    expect(await a.get('ds@1/0')).toBeUndefined();
    expect(await a.get('ds@1/1')).toBeUndefined();
    // the periodic sweep (every min(maxAge, 60 s)) removes the bytes without a read
    // A sweep is armed again when the one before ends, which on the async file API (slower) can
    // come after an advance: each poll moves the clock one more sweep interval.
    await expect
      .poll(async () => {
        await clock.advance(10_000);
        return (await a.usage()).expired;
      })
      .toBe(2);
    expect(await segments(dir)).toEqual([]);
    expect(await anywhere(dir, 'OLD-PIXELS')).toBe(false);
    await a.put('ds@1/2', text('NEXT-PIXELS', 1000));
    await a.close();
    await clock.advance(12_000);
    const b = new OpfsStore({ dir, maxAge: 10_000, clock });
    expect(await b.keys()).toEqual([]);
    expect((await b.usage()).expired).toBe(1);
    expect(await anywhere(dir, 'NEXT-PIXELS')).toBe(false);
    await b.close();
  });

  it('forgets one data set for real: its bytes leave the files, others stay; unknown is a no-op', async () => {
    const dir = dirName('forget');
    const a = new OpfsStore({ dir });
    const reader = new OpfsStore({ dir }); // another tab, training on both data sets
    await a.put('xray@1/0', text('XRAY-PIXELS', 3000));
    await a.put('ct@2/0', text('CT-PIXELS', 3000));
    await a.put('xray@1/1', text('XRAY-PIXELS', 3000));
    await a.put('xray@1/0', text('XRAY-PIXELS', 2000)); // leaves a superseded record
    await a.put('xray@10/0', text('OTHER-SET', 100));
    expect(await reader.get('xray@1/1')).toEqual(text('XRAY-PIXELS', 3000));
    expect(await a.forget('xray@1')).toBe(2);
    expect(await a.forget('unknown@9')).toBe(0);
    expect(await anywhere(dir, 'XRAY-PIXELS')).toBe(false);
    // segment 1 held xray records: emptied (removed once no other store holds it open)
    expect((await files(dir)).get('segment-00000001.bin')?.length ?? 0).toBe(0);
    expect(await a.get('ct@2/0')).toEqual(text('CT-PIXELS', 3000));
    expect(await a.get('xray@10/0')).toEqual(text('OTHER-SET', 100));
    // the other instance misses the forgotten samples, still reads the rest
    expect(await reader.get('xray@1/1')).toBeUndefined();
    expect(await reader.get('xray@1/0')).toBeUndefined();
    expect(await reader.get('ct@2/0')).toEqual(text('CT-PIXELS', 3000));
    expect(await segments(dir)).not.toContain('segment-00000001.bin');
    expect(await reader.forgetAll()).toBe(2);
    expect(await anywhere(dir, 'CT-PIXELS')).toBe(false);
    expect(await a.get('ct@2/0')).toBeUndefined();
    expect(await segments(dir)).toEqual([]);
    await reader.close();
    await a.close();
  });

  it.skipIf(!freedSpaceShows)(
    'gives the space back: navigator.storage.estimate() drops after forget (needs an estimate() that shows freed space)',
    async () => {
      const dir = dirName('space');
      const a = new OpfsStore({ dir, maxBytes: 2 ** 28 });
      const big = new Uint8Array(2 ** 20).map(() => (Math.random() * 256) | 0);
      for (let i = 0; i < 24; i++) await a.put(`big@1/${i}`, big);
      await a.flush();
      const before = (await navigator.storage.estimate()).usage!;
      expect(await a.forget('big@1')).toBe(24);
      const after = (await navigator.storage.estimate()).usage!;
      expect(before - after).toBeGreaterThan(20 * 2 ** 20);
      await a.close();
    },
  );

  it('a data set forgotten from another tab mid-training: the trainer reloads, never wrong data', async () => {
    const dir = dirName('train');
    const samples = Array.from({ length: 40 }, (_, i) => ({ x: new Int32Array(500).fill(i) }));
    const ds = createCachedDataset(fromArray(samples), {
      cacheType: 'lru',
      cacheSize: 1,
      cacheDir: dir,
      fingerprint: 'scan@1',
    });
    for (let i = 0; i < 40; i++) await ds.get(i);
    await ds.flush();
    const tab = new OpfsStore({ dir });
    let forgotten = 0;
    for (let i = 0; i < 40; i++) {
      if (i === 20) forgotten = await tab.forget('scan@1');
      expect((await ds.get(i)).x).toEqual(new Int32Array(500).fill(i));
    }
    expect(forgotten).toBeGreaterThan(0);
    const s = ds.getCacheStats();
    expect(s.diskHits).toBeGreaterThanOrEqual(20);
    expect(s.diskMisses).toBeGreaterThan(40); // the forgotten ones came from the source again
    await ds.close();
    await tab.close();
  });

  it('encrypted records keep their write time, also when rotation re-encrypts them', async () => {
    const dir = dirName('enc');
    const clock = new ManualClock();
    await clock.advance(1e12);
    const gen = () =>
      crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const oldKey = await gen();
    const a = new OpfsStore({ dir, maxAge: 10_000, clock, encryptionKey: oldKey });
    await a.put('ds@1/0', new Uint8Array(100).fill(7));
    await clock.advance(5_000);
    expect(await a.get('ds@1/0')).toEqual(new Uint8Array(100).fill(7));
    await a.close();
    const newKey = await gen();
    const opts = {
      dir,
      maxAge: 10_000,
      clock,
      encryptionKey: newKey,
      previousEncryptionKeys: [oldKey],
    };
    const b = new OpfsStore(opts);
    expect(await b.get('ds@1/0')).toEqual(new Uint8Array(100).fill(7));
    expect((await b.usage()).reencrypted).toBe(1);
    await b.close();
    const c = new OpfsStore({ dir, maxAge: 10_000, clock, encryptionKey: newKey });
    expect(await c.get('ds@1/0')).toEqual(new Uint8Array(100).fill(7)); // re-encrypted
    await clock.advance(7_000); // 12 s after the first write: expired, re-encryption or not
    expect(await c.get('ds@1/0')).toBeUndefined();
    await c.close();
  });
});
