import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

// OpfsStore keeps at most two read messages in flight; reads asked meanwhile wait on the page
// and travel together in the next message. These tests ask reads the way a prefetching loader
// does (one per turn, while earlier ones are being answered) and check each is answered.

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-inflight-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

/** Each key's bytes differ. */
const value = (i: number) => new Uint8Array(20_000 + i).fill((i % 250) + 1);

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('OpfsStore reads asked while earlier ones are in flight', () => {
  for (const backend of ['auto', 'async'] as const) {
    it(`answers every read asked one per turn with its own bytes (${backend})`, async () => {
      const store = new OpfsStore({ dir: dirName(backend), backend });
      await Promise.all(Array.from({ length: 24 }, (_, i) => store.put(`k${i}`, value(i))));
      const reads: Promise<Uint8Array | undefined>[] = [];
      for (let n = 0; n < 60; n++) {
        // keys in a scrambled order, some twice, some missing
        const i = (n * 7) % 30;
        reads.push(store.get(`k${i}`));
        if (n % 3 === 0) await nextTask();
        else await null;
      }
      const got = await Promise.all(reads);
      for (const [n, g] of got.entries()) {
        const i = (n * 7) % 30;
        if (i < 24) expect(g, `read ${n} of k${i}`).toEqual(value(i));
        else expect(g, `read ${n} of k${i}`).toBeUndefined();
      }
      await store.close();
    });
  }

  it('answers reads held back behind two batches when close() comes right after them', async () => {
    const store = new OpfsStore({ dir: dirName('close') });
    await Promise.all(Array.from({ length: 3 }, (_, i) => store.put(`k${i}`, value(i))));
    const first = store.get('k0');
    await null; // sent
    const second = store.get('k1');
    await null; // sent: two batches in flight, none answered yet (answers come as tasks)
    const held = store.get('k2');
    const closing = store.close();
    expect(await first).toEqual(value(0));
    expect(await second).toEqual(value(1));
    expect(await held).toEqual(value(2));
    await closing;
  });
});
