import { CachedDataset, DataLoader, fromArray } from '@medfusion/core';
import { createAugmentWorkerPool } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { type AugSample, augSamples, recipe } from './fixtures/augmentRecipe.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const bytes = (a: Float32Array) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

async function batches(
  augment: ConstructorParameters<typeof DataLoader<AugSample>>[1],
  samples: AugSample[],
) {
  const cached = new CachedDataset(fromArray(samples), { cacheSize: samples.length });
  const loader = new DataLoader(cached, { batchSize: 4, shuffle: true, seed: 9, ...augment });
  const out: number[][] = [];
  for (let e = 0; e < 2; e++) {
    for await (const b of loader) out.push(bytes(b.image!.data as Float32Array));
  }
  return out;
}

describe('the augment pool moves copies to its workers', () => {
  it('a worker that dies mid-call: its calls are retried with fresh copies, same batches, cache intact', async () => {
    const samples = augSamples(12);
    const before = samples.map((s) => bytes(s.image));
    let started = 0;
    const crashes: number[][] = [];
    const pool = createAugmentWorkerPool<AugSample>({
      worker: () =>
        new Worker(new URL('./fixtures/augment-crash.worker.ts', import.meta.url), {
          type: 'module',
          name: started++ === 0 ? 'first' : 'other',
        }),
      poolSize: 2,
      concurrency: 1,
      callTimeoutMs: 20_000,
      onCrash: (event) => crashes.push(event.indices),
    });
    closers.push(() => pool.close());
    // Both workers up before the first call, one call each at a time: the calls alternate, so
    // 'first' surely gets its 3rd (on a loaded machine the other one could otherwise start
    // first and finish every call alone).
    for (let t = 0; pool.stats().readyWorkers < 2; t++) {
      if (t > 400) throw new Error('the pool did not start 2 workers within 20 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const viaWorkers = await batches({ augment: pool }, samples);
    expect(crashes.length).toBe(1);
    expect(crashes[0]!.length).toBeGreaterThan(0);
    expect(pool.stats().retries).toBeGreaterThan(0);
    expect(viaWorkers).toEqual(await batches({ augment: recipe }, samples));
    expect(samples.map((s) => bytes(s.image))).toEqual(before);
  });

  it('sends views into larger buffers and other typed arrays as copies of their own bytes', async () => {
    const pool = createAugmentWorkerPool<AugSample & { extra: Uint8Array }>({
      worker: () =>
        new Worker(new URL('./fixtures/augment.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
    });
    closers.push(() => pool.close());
    const backing = new Float32Array(80).fill(0.25);
    const image = backing.subarray(8, 72);
    const extra = Uint8Array.from([1, 2, 3]);
    const sample = { image, imageShape: [8, 8, 1], label: 1, extra };
    const out = await pool.apply(sample, { seed: 1, epoch: 0, index: 5 } as never);
    expect(out.image.length).toBe(64);
    expect(Array.from(out.extra)).toEqual([1, 2, 3]);
    // the page's arrays are intact (not moved, not written)
    expect(backing.buffer.byteLength).toBe(320);
    expect(Array.from(backing).every((v) => v === 0.25)).toBe(true);
    expect(Array.from(extra)).toEqual([1, 2, 3]);
  });
});
