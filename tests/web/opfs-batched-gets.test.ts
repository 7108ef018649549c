import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-batch-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

const value = (i: number) => new Uint8Array(3000 + i).fill((i % 250) + 1);

async function flipByte(dir: string, at: number): Promise<void> {
  const root = await navigator.storage.getDirectory();
  const fh = await (await root.getDirectoryHandle(dir)).getFileHandle('segment-00000001.bin');
  const b = new Uint8Array(await (await fh.getFile()).slice(at, at + 1).arrayBuffer());
  const w = await fh.createWritable({ keepExistingData: true });
  await w.write({ type: 'write', position: at, data: new Uint8Array([b[0]! ^ 0x40]) });
  await w.close();
}

describe('OpfsStore reads issued together (one message per batch)', () => {
  for (const backend of ['auto', 'async'] as const) {
    it(`answers a burst larger than one batch with present, missing and repeated keys (${backend})`, async () => {
      const store = new OpfsStore({ dir: dirName(backend), backend });
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.put(`k${i}`, value(i))));
      // 150 reads at once: more than one message's worth, every key read 3 times, 30 misses
      const keys = Array.from({ length: 150 }, (_, n) => (n < 120 ? `k${n % 40}` : `none${n}`));
      const got = await Promise.all(keys.map((k) => store.get(k)));
      for (const [n, g] of got.entries()) {
        if (n < 120) expect(g, keys[n]).toEqual(value(n % 40));
        else expect(g, keys[n]).toBeUndefined();
      }
      // repeated keys come back as separate buffers: changing one leaves the other intact
      got[0]![0] = 0;
      expect(got[40]![0]).toBe(1);
      await store.close();
    });
  }

  it('drops only the corrupt entry of a batch and serves the others', async () => {
    const dir = dirName('corrupt');
    const a = new OpfsStore({ dir });
    const values = Array.from({ length: 4 }, (_, i) => new Uint8Array(1000).fill(i + 1));
    for (let i = 0; i < 4; i++) await a.put(`k${i}`, values[i]!);
    await a.close();
    // records are 24 + 2 + 1,000 bytes: flip a byte inside k2's value
    await flipByte(dir, 2 * 1026 + 24 + 2 + 10);
    const b = new OpfsStore({ dir });
    const got = await Promise.all(['k0', 'k1', 'k2', 'k3', 'k2'].map((k) => b.get(k)));
    expect(got[0]).toEqual(values[0]);
    expect(got[1]).toEqual(values[1]);
    expect(got[2]).toBeUndefined();
    expect(got[3]).toEqual(values[3]);
    expect(got[4]).toBeUndefined();
    expect((await b.usage()).corruptDropped).toBe(1);
    expect(await b.has('k2')).toBe(false);
    await b.close();
  });

  it('rejects reads still queued when the store is terminated, instead of leaving them waiting', async () => {
    const store = new OpfsStore({ dir: dirName('term') });
    await store.put('k', value(1));
    const pending = [store.get('k'), store.get('k')];
    store.terminate();
    for (const p of pending) await expect(p).rejects.toMatchObject({ code: 'STORE_WORKER_GONE' });
    await expect(store.get('k')).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
