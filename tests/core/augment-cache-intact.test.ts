import { checksum, DataLoader } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { cached, imageSamples, standardRecipe } from './augment-fixtures.js';

const hash = (a: Float32Array) => checksum(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

describe('augment runs after the cache and never changes the cached sample', () => {
  it('every cached sample is bitwise unchanged after many augmented epochs', async () => {
    const samples = imageSamples(10);
    const before = samples.map((s) => [hash(s.image), hash(s.tabular), s.label]);
    const ds = cached(samples);
    const loader = new DataLoader(ds, {
      batchSize: 4,
      shuffle: true,
      seed: 3,
      augment: standardRecipe(),
    });
    let seen = 0;
    for (let e = 0; e < 6; e++) {
      for await (const b of loader) seen += b.image!.shape[0]!;
    }
    expect(seen).toBe(60);
    // the cache served every epoch after the first (the augment stage sits above it)
    expect(ds.getCacheStats().misses).toBe(10);
    expect(ds.getCacheStats().hits).toBe(50);
    for (let i = 0; i < samples.length; i++) {
      const s = (await ds.get(i)) as (typeof samples)[number];
      expect(s).toBe(samples[i]); // the same object the cache holds
      expect([hash(s.image), hash(s.tabular), s.label]).toEqual(before[i]);
    }
  });

  it('augmented batches differ from the plain ones while the labels stay', async () => {
    const samples = imageSamples(8);
    const plain = new DataLoader(cached(samples), { batchSize: 8 });
    const aug = new DataLoader(cached(samples), { batchSize: 8, augment: standardRecipe() });
    let a: Float32Array | undefined;
    let b: Float32Array | undefined;
    for await (const batch of plain) a = batch.image!.data.slice() as Float32Array;
    for await (const batch of aug) {
      b = batch.image!.data as Float32Array;
      expect(Array.from(batch.label!.data)).toEqual(samples.map((s) => s.label));
      expect(Array.from(batch.tabular!.data)).toEqual(
        samples.flatMap((s) => Array.from(s.tabular)),
      );
    }
    expect(Array.from(b!)).not.toEqual(Array.from(a!));
  });
});
