import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-evict-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

async function segmentFileBytes(dir: string): Promise<number> {
  const root = await navigator.storage.getDirectory();
  const d = await root.getDirectoryHandle(dir);
  let total = 0;
  for await (const [name, h] of d as unknown as AsyncIterable<[string, FileSystemHandle]>) {
    if (name.startsWith('segment-')) total += (await (h as FileSystemFileHandle).getFile()).size;
  }
  return total;
}

const value = (i: number) => new Uint8Array(2000).fill(i & 0xff);

describe('OpfsStore eviction', () => {
  it('never lets segment files exceed maxBytes', async () => {
    const dir = dirName('bound');
    const maxBytes = 30_000;
    const store = new OpfsStore({ dir, maxBytes, segmentBytes: 8_000 });
    for (let i = 0; i < 60; i++) {
      await store.put(`k${i}`, value(i));
      const u = await store.usage();
      expect(u.diskBytes).toBeLessThanOrEqual(maxBytes);
    }
    // a burst of concurrent puts is bounded too
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.put(`burst${i}`, value(i))));
    const u = await store.usage();
    expect(u.diskBytes).toBeLessThanOrEqual(maxBytes);
    expect(u.evictedSegments).toBeGreaterThan(0);
    expect(await store.get('burst39')).toEqual(value(39));
    await store.close();
    expect(await segmentFileBytes(dir)).toBeLessThanOrEqual(maxBytes);
  });

  it('evicts whole segments, least recently used first', async () => {
    const dir = dirName('order');
    // records are 2,027 bytes: 4 per 8,200-byte segment, 3 segments fit in 25,000 bytes
    const store = new OpfsStore({ dir, maxBytes: 25_000, segmentBytes: 8_200 });
    for (let i = 0; i < 12; i++) await store.put(`k${i}`, value(i)); // segments 1, 2, 3
    expect((await store.usage()).segments).toBe(3);
    await store.get('k1'); // segment 1 (k0..k3) becomes most recently used
    for (let i = 12; i < 16; i++) await store.put(`k${i}`, value(i)); // needs a 4th segment
    const present = await Promise.all(Array.from({ length: 16 }, (_, i) => store.has(`k${i}`)));
    // segment 2 (k4..k7), the least recently used, went as a whole; segment 1 stayed
    expect(present).toEqual([
      ...[true, true, true, true],
      ...[false, false, false, false],
      ...[true, true, true, true],
      ...[true, true, true, true],
    ]);
    expect(await store.get('k0')).toEqual(value(0));
    await store.close();
    // the order survives a reopen
    const again = new OpfsStore({ dir, maxBytes: 25_000, segmentBytes: 8_200 });
    expect(await again.has('k5')).toBe(false);
    expect(await again.get('k9')).toEqual(value(9));
    await again.close();
  });
});
