// CsvImageDataset inside Web Workers (createImageBitmap + OffscreenCanvas there),
// served to the page through createWorkerExecutor: same exact pixels, buffers
// transferred rather than copied, errors naming the index.
import type { CsvImageSample } from '@medfusion/web';
import { createWorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const executors: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const e of executors.splice(0)) await e.close();
});

function pool(poolSize: number) {
  const executor = createWorkerExecutor<CsvImageSample>({
    worker: () =>
      new Worker(new URL('./fixtures/csv-image.worker.ts', import.meta.url), { type: 'module' }),
    poolSize,
  });
  executors.push(executor);
  return executor;
}

describe('CsvImageDataset in Web Workers', () => {
  it('decodes in workers with the exact pixels, tabular values and labels', async () => {
    const executor = pool(2);
    const signal = new AbortController().signal;
    const samples = await Promise.all([0, 1, 2, 3].map((i) => executor.run(i, signal)));
    for (const [i, s] of samples.entries()) {
      expect(s.image).toBeInstanceOf(Float32Array);
      expect(s.image.length).toBe(64);
      expect(s.image[9]).toBeCloseTo(((i * 50 + 1 * 3 + 1 * 5) % 256) / 255, 5); // x = 1, y = 1
      expect(s.image[63]).toBeCloseTo(((i * 50 + 7 * 3 + 7 * 5) % 256) / 255, 5);
      expect(Array.from(s.tabular)).toEqual([40 + 10 * i, 1.5 + i]);
      expect(s.label).toBe([0, 1, 1, 0][i]);
    }
  });

  it('reports a bad index from the worker with the index in the error', async () => {
    const executor = pool(1);
    await expect(executor.run(99, new AbortController().signal)).rejects.toThrow(/99/);
    // The worker keeps serving after the error.
    const s = await executor.run(4, new AbortController().signal);
    expect(s.image.length).toBe(64);
  });
});
