import { createCachedDataset, flushMicrotasks, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { ScriptedSource } from './prefetch-scripted.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('one byte budget covers the cache and the prefetch buffers', () => {
  for (const evictionPolicy of ['lru', 'belady'] as const) {
    it(`never holds more than maxBytes, however far the plan reaches (${evictionPolicy})`, async () => {
      const bytesPerSample = 100;
      const maxBytes = 1000; // 10 samples, while cacheSize + prefetchSize would be 40
      const src = new ScriptedSource(60, bytesPerSample);
      const ds = createCachedDataset(src, {
        cacheType: 'both',
        cacheSize: 20,
        prefetchSize: 20,
        numWorkers: 4,
        evictionPolicy,
        maxBytes,
        clock: new ManualClock(),
      });
      const rand = prng(evictionPolicy.length);
      const plan = Array.from({ length: 300 }, () => Math.floor(rand() * 60));
      ds.setPlan(plan);
      const check = () => {
        const s = ds.getCacheStats();
        expect(s.bytes).toBeLessThanOrEqual(maxBytes);
        expect(s.peakBytes).toBeLessThanOrEqual(maxBytes);
      };
      for (const i of plan) {
        let value: { index: number } | undefined;
        Promise.resolve(ds.get(i)).then((v) => {
          value = v;
        });
        check();
        for (;;) {
          await flushMicrotasks();
          check();
          if (value !== undefined) break;
          const pending = src.pendingIndices();
          src.resolve(pending[Math.floor(rand() * pending.length)]!);
        }
        expect(value.index).toBe(i);
        // let prefetches land before the next read, the moment the buffer is fullest
        for (const k of src.pendingIndices()) {
          src.resolve(k);
          await flushMicrotasks();
          check();
        }
      }
      const s = ds.getCacheStats();
      expect(s.peakBytes).toBeGreaterThan(maxBytes / 2); // the budget was actually used
      expect(s.prefetch.used).toBeGreaterThan(0);
      await ds.close();
    });
  }

  it('a sample larger than the whole budget is returned but never held', async () => {
    const src = new ScriptedSource(5, 5000);
    const ds = createCachedDataset(src, { maxBytes: 1000, clock: new ManualClock() });
    const p = ds.get(1);
    src.resolve(1);
    expect((await p).data.byteLength).toBe(5000);
    expect(ds.getCacheStats()).toMatchObject({ bytes: 0, size: 0, rejected: 1 });
    await ds.close();
  });
});
