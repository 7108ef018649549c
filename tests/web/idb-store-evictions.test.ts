// IdbStore counts what it evicts as `evictions`, the spelling of CacheStats and LRUCacheStats.
import { IdbStore } from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';

const name = `test-idb-evictions-${Math.random().toString(36).slice(2)}`;
afterEach(async () => {
  await deleteDB(name);
});

describe('IdbStore usage', () => {
  it('counts entries evicted to stay under maxBytes as evictions', async () => {
    const store = new IdbStore({ name, maxBytes: 10_000 });
    try {
      for (let i = 0; i < 4; i++) await store.put(`k${i}`, new Uint8Array(3000));
      expect((await store.usage()).evictions).toBe(1);
      await store.put('k4', new Uint8Array(3000));
      const usage = await store.usage();
      expect(usage.evictions).toBe(2);
      expect(usage).not.toHaveProperty('evicted');
    } finally {
      await store.close();
    }
  });
});
