import { OpfsStore } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { keyedBytes, opfsTestDirs } from './fixtures/opfsTestData';

const dirs = opfsTestDirs();

function value(key: string, size: number): Uint8Array {
  return keyedBytes(key, size, 0, 13);
}

describe('OpfsStore after a worker is terminated mid-put', () => {
  it('keeps every finished entry and never returns a half-written one', async () => {
    const dir = `test-opfs-crash-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    const committed = new Set<string>();
    const attempted = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const store = new OpfsStore({
        dir,
        maxBytes: 64 * 2 ** 20,
        snapshotDelayMs: round % 2 ? 0 : 60_000,
      });
      // entries that finished before the crash
      for (let i = 0; i < 5; i++) {
        const key = `r${round}-done${i}`;
        await store.put(key, value(key, 3000));
        committed.add(key);
      }
      // a burst of large puts, killed while the worker writes them
      const burst = Array.from({ length: 8 }, (_, i) => `r${round}-burst${i}`);
      const puts = burst.map((key) => {
        attempted.add(key);
        return store.put(key, value(key, 256 * 1024)).then(
          () => committed.add(key),
          () => {},
        );
      });
      await new Promise((r) => setTimeout(r, round * 3));
      store.terminate();
      await Promise.all(puts);

      const reopened = new OpfsStore({ dir, maxBytes: 64 * 2 ** 20 });
      for (const key of committed)
        expect(await reopened.get(key), key).toEqual(
          value(key, key.includes('burst') ? 256 * 1024 : 3000),
        );
      for (const key of attempted) {
        const got = await reopened.get(key);
        if (got !== undefined) expect(got, key).toEqual(value(key, 256 * 1024));
      }
      for (const key of await reopened.keys())
        expect(committed.has(key) || attempted.has(key)).toBe(true);
      await reopened.close();
    }
    // More of the burst now lands before the kill (puts no longer wait for a flush), and every
    // landed 256 KB entry is compared element by element in every later round.
  }, 180_000);
});
