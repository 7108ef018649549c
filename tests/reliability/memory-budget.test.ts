// Memory: a 64 MB byte budget, 150 KB samples and a prefetch depth of 1,000.
// The bytes the engine holds (cache + prefetch buffer) never exceed the budget,
// checked at every load, every read and every batch.
import { type CacheType, createCachedDataset, DataLoader, type Dataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bounded, report, type Sample } from './harness.js';

const BUDGET = 64 * 2 ** 20;
const SAMPLE_BYTES = 150 * 1024;
const LENGTH = 1500;

describe('memory stays within the byte budget', () => {
  for (const cacheType of ['both', 'prefetch', 'lru'] as CacheType[]) {
    it(`${cacheType}: maxBytes 64 MB, 150 KB samples, prefetchSize 1000`, async ({ task }) => {
      let checks = 0;
      let worst = 0;
      const check = () => {
        const bytes = cached.getCacheStats().bytes;
        worst = Math.max(worst, bytes);
        checks++;
        expect(bytes).toBeLessThanOrEqual(BUDGET);
      };
      const source: Dataset<Sample> = {
        length: LENGTH,
        // zero latency, but a macrotask per load so prefetch can run ahead of the reader
        get: (index) =>
          new Promise((resolve) =>
            setImmediate(() => {
              check(); // at every load
              resolve({ index, pixels: new Uint8Array(SAMPLE_BYTES).fill(index % 251) });
            }),
          ),
      };
      const cached = createCachedDataset(source, {
        cacheType,
        cacheSize: LENGTH, // the count allows everything: only the byte budget limits
        prefetchSize: 1000,
        numWorkers: 32,
        maxBytes: BUDGET,
      });
      const loader = new DataLoader<Sample, number[]>(cached, {
        batchSize: 32,
        shuffle: true,
        seed: 11,
        prefetchBatches: 0, // read-ahead is left to the engine (prefetchSize 1000)
        collate: (samples) => {
          check(); // at every batch
          return samples.map((s) => {
            const p = s.pixels;
            expect(p.length === SAMPLE_BYTES && p[0] === s.index % 251 && p.at(-1) === p[0]).toBe(
              true,
            );
            return s.index;
          });
        },
      });
      let delivered = 0;
      const { ms } = await bounded(`memory ${cacheType}`, 30_000, async () => {
        for (let e = 0; e < 2; e++) {
          for await (const batch of loader) {
            delivered += batch.length;
            check();
            // a training step: slower than the source, so prefetch runs far ahead
            await new Promise((r) => setTimeout(r, 3));
            check();
          }
        }
      });
      const stats = cached.getCacheStats();
      expect(delivered).toBe(2 * LENGTH);
      expect(stats.peakBytes).toBeLessThanOrEqual(BUDGET);
      // the budget was actually binding: the data set is 3.4x the budget
      expect(LENGTH * SAMPLE_BYTES).toBeGreaterThan(3 * BUDGET);
      if (cacheType !== 'lru') {
        expect(stats.prefetch.issued).toBeGreaterThan(0);
        expect(stats.peakBytes).toBeGreaterThan(BUDGET / 2); // prefetch ran far ahead
      }
      expect(checks).toBeGreaterThan(2 * loader.length); // at least every batch, twice
      await cached.close();
      report(task, {
        scenario: 'memory',
        case: `${cacheType} / 64 MB / 150 KB / depth 1000`,
        figures: {
          checks,
          peakMB: +(stats.peakBytes / 2 ** 20).toFixed(1),
          budgetMB: 64,
          hitRate: +stats.hitRate.toFixed(3),
          ms: Math.round(ms),
        },
      });
    });
  }
});
