import { DataLoader, type LoaderState } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bytes, cached, imageSamples, standardRecipe } from './augment-fixtures.js';

async function batches(loader: DataLoader<never>, limit: number): Promise<number[][]> {
  const out: number[][] = [];
  if (limit === 0) return out;
  for await (const b of loader) {
    out.push(bytes(b.image!.data as Float32Array));
    if (out.length === limit) break;
  }
  return out;
}

describe('augmented runs resume bitwise', () => {
  it('first part + resumed part = the uninterrupted run, for every stop point', async () => {
    const samples = imageSamples(11);
    const opts = { batchSize: 3, shuffle: true, seed: 12345 };
    const full: number[][] = [];
    const reference = new DataLoader(cached(samples), { ...opts, augment: standardRecipe() });
    for (let e = 0; e < 3; e++) full.push(...(await batches(reference as never, Infinity)));
    expect(full.length).toBe(12);
    for (const stop of [0, 1, 4, 5, 9]) {
      const first = new DataLoader(cached(samples), { ...opts, augment: standardRecipe() });
      const part: number[][] = [];
      while (part.length < stop) part.push(...(await batches(first as never, stop - part.length)));
      const saved: LoaderState = JSON.parse(JSON.stringify(first.state()));
      // a fresh process: new cache, new recipe, new loader
      const resumed = new DataLoader(cached(samples), {
        ...opts,
        augment: standardRecipe(),
        resumeFrom: saved,
      });
      const rest: number[][] = [];
      while (part.length + rest.length < full.length) {
        rest.push(...(await batches(resumed as never, Infinity)));
      }
      expect([...part, ...rest]).toEqual(full);
    }
  });
});
