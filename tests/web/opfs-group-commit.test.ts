import { OpfsStore } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { keyedBytes, opfsTestDirs } from './fixtures/opfsTestData';

const dirs = opfsTestDirs();

function dirName(tag: string): string {
  const dir = `test-opfs-group-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(dir);
  return dir;
}

function value(key: string, size: number): Uint8Array {
  return keyedBytes(key, size, 7, 11);
}

describe('OpfsStore group commit', () => {
  it('writes puts issued together as one batch with one flush (flushDelayMs 0)', async () => {
    const store = new OpfsStore({ dir: dirName('zero'), flushDelayMs: 0 });
    const keys = Array.from({ length: 32 }, (_, i) => `k${i}`);
    await Promise.all(keys.map((k) => store.put(k, value(k, 20_000))));
    expect((await store.usage()).flushes).toBe(1);
    await Promise.all(keys.slice(0, 4).map((k) => store.put(k, value(`${k}!`, 500))));
    expect((await store.usage()).flushes).toBe(2);
    for (const k of keys.slice(4)) expect(await store.get(k)).toEqual(value(k, 20_000));
    for (const k of keys.slice(0, 4)) expect(await store.get(k)).toEqual(value(`${k}!`, 500));
    await store.close();
  });

  it('resolves puts before the flush; flush() commits every batch written since in one', async () => {
    const store = new OpfsStore({ dir: dirName('delay'), flushDelayMs: 60_000 });
    for (let b = 0; b < 3; b++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.put(`b${b}/${i}`, value(`b${b}/${i}`, 9_000))),
      );
    }
    expect((await store.usage()).flushes).toBe(0);
    await store.flush();
    expect((await store.usage()).flushes).toBe(1);
    await store.flush(); // nothing new written: no flush
    expect((await store.usage()).flushes).toBe(1);
    await store.close();
  });

  it('sends puts still queued when flush() is called, and flushes them', async () => {
    const store = new OpfsStore({ dir: dirName('queued'), flushDelayMs: 60_000 });
    await store.open();
    const put = store.put('late', value('late', 1_000));
    await store.flush();
    await put;
    expect((await store.usage()).flushes).toBe(1);
    await store.close();
  });

  it('a reload finds every resolved put, flushed or not, and never a corrupt record', async () => {
    const dir = dirName('reload');
    const store = new OpfsStore({ dir, flushDelayMs: 60_000, snapshotDelayMs: 60_000 });
    const keys = Array.from({ length: 24 }, (_, i) => `r${i}`);
    await Promise.all(keys.map((k) => store.put(k, value(k, 40_000))));
    // the worker dies before its group commit (as a closed tab would)
    store.terminate();
    const reopened = new OpfsStore({ dir });
    for (const k of keys) expect(await reopened.get(k), k).toEqual(value(k, 40_000));
    expect((await reopened.keys()).sort()).toEqual([...keys].sort());
    await reopened.close();
  });

  it('a second store writes once the first one lets go of the lock at its group commit', async () => {
    const dir = dirName('lease');
    const a = new OpfsStore({ dir, flushDelayMs: 150 });
    const b = new OpfsStore({ dir, flushDelayMs: 150 });
    await Promise.all([a.open(), b.open()]);
    await a.put('a', value('a', 3_000));
    await b.put('b', value('b', 3_000)); // waits for a's commit, then takes the lock
    await a.put('a2', value('a2', 3_000));
    expect(await a.get('b')).toEqual(value('b', 3_000));
    expect(await b.get('a2')).toEqual(value('a2', 3_000));
    await a.close();
    await b.close();
  });

  it('splits a burst larger than one message into several batches, in order', async () => {
    const store = new OpfsStore({ dir: dirName('burst'), flushDelayMs: 0, maxBytes: 2 ** 28 });
    const keys = Array.from({ length: 40 }, (_, i) => `big${i}`);
    await Promise.all(keys.map((k) => store.put(k, value(k, 1_000_000))));
    // 40 MB in one turn: more than one 16 MiB message, each its own batch and flush
    expect((await store.usage()).flushes).toBeGreaterThan(1);
    await store.put('big0', value('again', 10));
    expect(await store.get('big0')).toEqual(value('again', 10));
    expect(await store.get('big39')).toEqual(value('big39', 1_000_000));
    await store.close();
  });

  it('rejects a bad flushDelayMs naming it, and flush() after close', async () => {
    expect(() => new OpfsStore({ dir: 'x', flushDelayMs: -1 })).toThrow(/flushDelayMs.*-1/);
    expect(() => new OpfsStore({ dir: 'x', flushDelayMs: Number.NaN })).toThrow(RangeError);
    const store = new OpfsStore({ dir: dirName('closed') });
    await store.close();
    await expect(store.flush()).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
