import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-conc-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

const value = (i: number) => new Uint8Array(5000 + i).fill(i + 1);

describe('OpfsStore under concurrent calls', () => {
  it('answers many interleaved reads, each with its own bytes (async file API in the worker)', async () => {
    const store = new OpfsStore({ dir: dirName('async'), backend: 'async', callTimeoutMs: 10_000 });
    await Promise.all(Array.from({ length: 24 }, (_, i) => store.put(`k${i}`, value(i))));
    const got = await Promise.all(Array.from({ length: 24 }, (_, i) => store.get(`k${i}`)));
    for (const [i, g] of got.entries()) expect(g, `k${i}`).toEqual(value(i));
    await store.close();
  });

  it('serves reads while a writer waits for the directory lock held by another tab', async () => {
    const dir = dirName('lock');
    const store = new OpfsStore({ dir, callTimeoutMs: 10_000 });
    for (let i = 0; i < 12; i++) await store.put(`k${i}`, value(i));
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let acquired!: () => void;
    const gotLock = new Promise<void>((r) => {
      acquired = r;
    });
    void navigator.locks.request(`medfusion-opfs:${dir}`, () => {
      acquired();
      return held;
    });
    await gotLock;
    let putDone = false;
    const put = store.put('late', value(99)).then(() => {
      putDone = true;
    });
    await new Promise((r) => setTimeout(r, 50)); // the write now waits for the lock in the worker
    // reads do not queue behind the blocked write, and all settle with the right bytes
    const got = await Promise.all(Array.from({ length: 12 }, (_, i) => store.get(`k${i}`)));
    for (const [i, g] of got.entries()) expect(g).toEqual(value(i));
    expect(putDone).toBe(false);
    release();
    await put;
    expect(await store.get('late')).toEqual(value(99));
    await store.close();
  });

  it('bounds every call: a write stuck behind a lock that is never released rejects with STORE_TIMEOUT', async () => {
    const dir = dirName('timeout');
    // 5 s: the bound must also let open() start the OPFS worker, which took over 2 s in Firefox under load.
    const store = new OpfsStore({ dir, callTimeoutMs: 5_000 });
    await store.open();
    let release!: () => void;
    let acquired!: () => void;
    const gotLock = new Promise<void>((r) => {
      acquired = r;
    });
    void navigator.locks.request(`medfusion-opfs:${dir}`, () => {
      acquired();
      return new Promise<void>((r) => {
        release = r;
      });
    });
    await gotLock;
    await expect(store.put('k', value(1))).rejects.toMatchObject({ code: 'STORE_TIMEOUT' });
    release();
    store.terminate();
  });
});
