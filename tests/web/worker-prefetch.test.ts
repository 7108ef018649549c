import { DataLoader, fromLoader, PrefetchDataset } from '@medfusion/core';
import { createWorkerExecutor, type WorkerCrashEvent } from '@medfusion/web';
import { describe, expect, it } from 'vitest';

interface Pixels {
  index: number;
  pixels: Uint8Array;
}

describe('worker executor under the prefetch engine', () => {
  it('a shuffled epoch through DataLoader → PrefetchDataset → crashing workers delivers every index exactly once', async () => {
    const crashes: WorkerCrashEvent[] = [];
    const executor = createWorkerExecutor<Pixels>({
      worker: () =>
        new Worker(new URL('./fixtures/crash.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 2,
      onCrash: (event) => crashes.push(event),
    });
    const source = fromLoader<Pixels>(300, () => {
      throw new Error('loads must run in the workers');
    });
    const dataset = new PrefetchDataset(source, { prefetchSize: 10, numWorkers: 8, executor });
    const loader = new DataLoader(dataset, {
      batchSize: 32,
      shuffle: true,
      seed: 3,
      collate: (samples: readonly Pixels[], ctx) => {
        samples.forEach((s, k) => {
          expect(s.index).toBe(ctx.indices[k]);
          expect(s.pixels[0]).toBe(s.index % 256);
        });
        return Array.from(ctx.indices);
      },
    });
    try {
      const seen: number[] = [];
      for await (const batch of loader) seen.push(...batch);
      expect(seen).toHaveLength(300);
      expect(new Set(seen).size).toBe(300);
      expect(seen).not.toEqual([...seen].sort((a, b) => a - b)); // it was shuffled
      // each worker dies on its 100th call: 300 loads over 2 workers kill at least one
      expect(crashes.length).toBeGreaterThanOrEqual(1);
      expect(executor.stats()).toMatchObject({ completed: 300, liveWorkers: 2 });
    } finally {
      await dataset.close();
      await executor.close();
    }
  });
});
