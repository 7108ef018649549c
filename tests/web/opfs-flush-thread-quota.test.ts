import { isQuotaError, OpfsStore, StoreError } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { server } from 'vitest/browser';
import { opfsTestDirs } from './fixtures/opfsTestData';
import { syncHandlesShareable } from './fixtures/syncHandles';
import { probeSyncHandles } from './syncHandleProbe';

// A timed group commit fsyncs on the OPFS worker's flush thread. An error
// raised there must cross both hops (flush thread → OPFS worker → page) as its
// own class: a QuotaExceededError stays one, so isQuotaError sees it, and the
// next flush() reports it once. The quota is simulated (`quotaBytes`): the
// flush thread charges it for every file of the store's directory, here a
// neighbour file the segment budget does not count.

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

async function writeNeighbour(dir: string, bytes: number): Promise<void> {
  const root = await navigator.storage.getDirectory();
  const d = await root.getDirectoryHandle(dir, { create: true });
  const f = await d.getFileHandle('neighbour.bin', { create: true });
  const w = await f.createWritable();
  await w.write(new Uint8Array(bytes));
  await w.close();
}

describe.skipIf(!flushThread)(`OpfsStore flush thread errors${noFlushThread}`, () => {
  it('a quota error on the flush thread reaches the page as a quota error, once', async () => {
    const dir = `test-opfs-flush-quota-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    await writeNeighbour(dir, 20_000);
    const store = new OpfsStore({ dir, quotaBytes: 25_000, flushDelayMs: 5 });
    // the write fits (segments hold 8 KB of the 25 KB); the directory does not
    await store.put('a', new Uint8Array(8_000).fill(1));
    for (let i = 0; i < 200 && (await store.usage()).quotaErrors === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const err = await store.flush().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('QUOTA_EXCEEDED');
    expect(isQuotaError(err)).toBe(true);
    // the flush thread's own error, rebuilt as its class after two hops
    const cause = (err as { cause?: unknown }).cause;
    expect(cause).toBeInstanceOf(DOMException);
    expect((cause as DOMException).name).toBe('QuotaExceededError');
    expect(isQuotaError(cause)).toBe(true);
    expect((await store.usage()).quotaErrors).toBeGreaterThan(0);
    // reported once; the value was flushed again on the worker's own thread
    await store.flush();
    expect(await store.get('a')).toEqual(new Uint8Array(8_000).fill(1));
    await store.close();
  });
});
