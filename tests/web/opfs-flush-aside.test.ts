import { OpfsStore } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { server } from 'vitest/browser';
import { keyedBytes, opfsTestDirs } from './fixtures/opfsTestData';
import { syncHandlesShareable } from './fixtures/syncHandles';
import { probeSyncHandles } from './syncHandleProbe';

// The timed group commit fsyncs on the OPFS worker's flush thread (its own
// handle on each segment) while write batches go on: evictions and clear()
// must still remove every segment file, and flush() must still cover them.

const dirs = opfsTestDirs();

// The flush thread needs a second handle on each segment ('readwrite-unsafe'); where handles are
// exclusive (Firefox) there is none and the group commit flushes on the OPFS worker itself.
// Where handles do not open at all (WebKitGTK) the store takes the async path, with no flush
// thread either (opfs-sync-handle-fallback.test.ts checks that path).
const handlesOpen = (await probeSyncHandles()).opens;
const flushThread = handlesOpen && (await syncHandlesShareable());
const noFlushThread = flushThread
  ? ''
  : ` [skipped in ${server.browser}: ${handlesOpen ? 'sync access handles are exclusive' : 'sync access handles do not open'}, so no flush thread]`;

function value(key: string, size: number): Uint8Array {
  return keyedBytes(key, size, 7, 13);
}

async function segmentFiles(dir: string): Promise<string[]> {
  const root = await navigator.storage.getDirectory();
  const d = await root.getDirectoryHandle(dir);
  const names: string[] = [];
  for await (const name of (d as unknown as { keys(): AsyncIterable<string> }).keys()) {
    if (name.startsWith('segment-')) names.push(name);
  }
  return names;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!flushThread)(`OpfsStore flush thread${noFlushThread}`, () => {
  it('evicts and clears segments whose group commit was flushed aside, and flush() covers them', async () => {
    const dir = `test-opfs-aside-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    const opts = { dir, flushDelayMs: 2, segmentBytes: 2 ** 20, maxBytes: 4 * 2 ** 20 };
    const store = new OpfsStore(opts);
    for (let b = 0; b < 40; b++) {
      await Promise.all(
        Array.from({ length: 4 }, (_, i) => store.put(`b${b}/${i}`, value(`b${b}/${i}`, 100_000))),
      );
      await tick(3); // timed commits run between (and during) the batches
    }
    const u = await store.usage();
    expect(u.flushes).toBeGreaterThan(0);
    expect(u.evictedSegments).toBeGreaterThan(0);
    // every evicted segment's file is gone: the flush thread had let go of it
    expect((await segmentFiles(dir)).length).toBe(u.segments);
    await store.flush();
    // the timed commits ran on the flush thread (none does where it cannot start)
    expect((await store.usage()).flushesAside).toBeGreaterThan(0);
    await store.close();

    const again = new OpfsStore(opts);
    for (let i = 0; i < 4; i++)
      expect(await again.get(`b39/${i}`)).toEqual(value(`b39/${i}`, 100_000));
    await again.put('late', value('late', 100_000));
    await tick(5); // a timed commit starts on the flush thread
    await again.clear();
    expect(await segmentFiles(dir)).toEqual([]);
    expect(await again.keys()).toEqual([]);
    await again.close();
  });
});
