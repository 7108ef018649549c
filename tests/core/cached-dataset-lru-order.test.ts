// CachedDataset's eviction order is exactly least-recently-used (the seed's LRU cache), checked
// against LRUCache as the model on random traces: every read is a hit exactly when the model
// holds the index, loads happen exactly on the model's misses, and the held count matches.
import { CachedDataset, fromLoader, LRUCache } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('CachedDataset: least recently used, read for read', () => {
  it('hits, loads and size equal an LRUCache model on random traces (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 29 }), { minLength: 1, maxLength: 300 }),
        (cacheSize, trace) => {
          const loads: number[] = [];
          const ds = fromLoader(30, (i) => {
            loads.push(i);
            return { id: i };
          });
          const cached = new CachedDataset(ds, { cacheSize });
          const model = new LRUCache<number, true>({ capacity: cacheSize });
          const modelLoads: number[] = [];
          for (const i of trace) {
            const hitsBefore = cached.getCacheStats().hits;
            const value = cached.get(i) as { id: number };
            expect(value.id).toBe(i);
            const hit = model.get(i) !== undefined;
            if (!hit) {
              modelLoads.push(i);
              model.set(i, true);
            }
            expect(cached.getCacheStats().hits - hitsBefore).toBe(hit ? 1 : 0);
            expect(cached.getCacheStats().size).toBe(model.size);
          }
          expect(loads).toEqual(modelLoads);
        },
      ),
      { numRuns: 200 },
    );
  });
});
