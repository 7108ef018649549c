import { AugmentError, CachedDataset, DataLoader, fromArray } from '@medfusion/core';
import { createAugmentWorkerPool } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { type AugSample, augSamples, recipe } from './fixtures/augmentRecipe.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const pool = () => {
  const p = createAugmentWorkerPool<AugSample>({
    worker: () =>
      new Worker(new URL('./fixtures/augment.worker.ts', import.meta.url), { type: 'module' }),
    poolSize: 2,
  });
  closers.push(() => p.close());
  return p;
};

const bytes = (a: Float32Array) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

describe('augmentation in a pool of Web Workers, after the cache', () => {
  it('gives bitwise the in-thread batches and leaves the cached samples intact', async () => {
    const samples = augSamples(20);
    const before = samples.map((s) => bytes(s.image));
    const run = async (augment: ConstructorParameters<typeof DataLoader<AugSample>>[1]) => {
      const cached = new CachedDataset(fromArray(samples), { cacheSize: 20 });
      const loader = new DataLoader(cached, { batchSize: 8, shuffle: true, seed: 4, ...augment });
      const out: number[][] = [];
      for (let e = 0; e < 3; e++) {
        for await (const b of loader) out.push(bytes(b.image!.data as Float32Array));
      }
      return out;
    };
    const workers = pool();
    const inThread = await run({ augment: recipe });
    const viaWorkers = await run({ augment: workers });
    expect(viaWorkers).toEqual(inThread);
    expect(workers.stats().completed).toBe(60);
    // cached buffers were cloned to the workers, never transferred away or written
    expect(samples.map((s) => bytes(s.image))).toEqual(before);
    for (const s of samples) expect(s.image.buffer.byteLength).toBe(256);
  });

  it('a recipe error in a worker ends the epoch as AugmentError with the worker error as cause', async () => {
    const samples = augSamples(6);
    samples[4]!.label = -1;
    const loader = new DataLoader(fromArray(samples), {
      batchSize: 2,
      onError: 'skip',
      augment: pool(),
    });
    let error: unknown;
    let batches = 0;
    try {
      for await (const _ of loader) batches++;
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AugmentError);
    expect((error as AugmentError).index).toBe(4);
    const cause = (error as AugmentError).cause as Error;
    expect(cause.name).toBe('RangeError');
    expect(cause.message).toBe('negative label -1');
    expect(batches).toBe(2);
  });

  it('validates poolSize', () => {
    const worker = () => new Worker('data:,');
    expect(() => createAugmentWorkerPool({ worker, poolSize: 0 })).toThrow(RangeError);
    expect(() => createAugmentWorkerPool({ worker, poolSize: '2' as never })).toThrow(
      /poolSize must be a positive integer, got "2"/,
    );
  });
});
