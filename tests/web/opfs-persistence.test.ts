import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-persist-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

function bytes(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

describe('OpfsStore persistence', () => {
  it('recovers entries written after the last index snapshot from the segment tail', async () => {
    const dir = dirName('tail');
    const a = new OpfsStore({ dir, snapshotDelayMs: 60_000 });
    await a.put('early', bytes(100, 1));
    await a.persistIndex();
    await a.put('gone', bytes(50, 5));
    await a.persistIndex();
    expect(await a.delete('gone')).toBe(true); // a tombstone, not in the snapshot
    await a.put('late', bytes(200, 2)); // flushed, but not in the snapshot
    a.terminate(); // no close, no snapshot
    const b = new OpfsStore({ dir });
    expect(await b.get('early')).toEqual(bytes(100, 1));
    expect(await b.get('gone')).toBeUndefined();
    expect(await b.get('late')).toEqual(bytes(200, 2));
    await b.close();
  });

  it('works with the async File System API fallback, in a worker and on the page', async () => {
    const dir = dirName('async');
    const a = new OpfsStore({ dir, backend: 'async' });
    await a.put('x', bytes(5000, 3));
    expect((await a.usage()).backend).toBe('async');
    await a.close();
    const b = new OpfsStore({ dir, worker: false });
    expect((await b.usage()).backend).toBe('async');
    expect(await b.get('x')).toEqual(bytes(5000, 3));
    await b.put('y', bytes(10, 4));
    await b.close();
    const c = new OpfsStore({ dir });
    expect(await c.get('y')).toEqual(bytes(10, 4));
    expect(await c.get('x')).toEqual(bytes(5000, 3));
    await c.close();
  });

  it('asks for persistent storage when persist is true and reports the answer', async () => {
    const store = new OpfsStore({ dir: dirName('persist'), persist: true });
    await store.open();
    expect(typeof store.persisted).toBe('boolean');
    expect((await store.usage()).persisted).toBe(store.persisted);
    await store.close();
  });
});
