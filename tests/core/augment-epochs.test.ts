import { type AugmentContext, DataLoader, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bytes, cached, imageSamples, standardRecipe } from './augment-fixtures.js';

describe('each epoch draws a new view of a sample', () => {
  it('two epochs give different views of the same sample; the same epoch is reproducible', async () => {
    const samples = imageSamples(6);
    const views = async (seed: number) => {
      const loader = new DataLoader(cached(samples), {
        batchSize: 6,
        seed,
        augment: standardRecipe(),
      });
      const out: number[][][] = [];
      for (let e = 0; e < 3; e++) {
        for await (const b of loader) {
          const d = b.image!.data as Float32Array;
          out.push(samples.map((_, i) => bytes(d.subarray(i * 16, i * 16 + 16))));
        }
      }
      return out;
    };
    const a = await views(1);
    for (let i = 0; i < samples.length; i++) {
      expect(a[1]![i]).not.toEqual(a[0]![i]);
      expect(a[2]![i]).not.toEqual(a[1]![i]);
    }
    expect(await views(1)).toEqual(a);
    expect(await views(2)).not.toEqual(a);
  });

  it('the context carries seed, epoch and the dataset index, whatever the order', async () => {
    const seen: string[] = [];
    const augment = (s: { id: number }, ctx: AugmentContext) => {
      seen.push(`${ctx.seed}/${ctx.epoch}/${ctx.index}/${s.id}`);
      return { id: s.id * 10 };
    };
    const loader = new DataLoader(fromArray([{ id: 0 }, { id: 1 }, { id: 2 }]), {
      batchSize: 3,
      shuffle: true,
      seed: 9,
      augment,
    });
    const ids: number[] = [];
    for (let e = 0; e < 2; e++) for await (const b of loader) ids.push(...b.id!.data);
    expect(ids.sort()).toEqual([0, 0, 10, 10, 20, 20]);
    expect(seen.map((s) => s.split('/').slice(0, 2).join('/')).sort()).toEqual([
      '9/0',
      '9/0',
      '9/0',
      '9/1',
      '9/1',
      '9/1',
    ]);
    for (const s of seen) expect(s.split('/')[2]).toBe(s.split('/')[3]);
  });

  it('the sample stream is a pure function of (seed, epoch, index), not of the read order', async () => {
    const drawsOf = async (shuffle: boolean, prefetchBatches: number) => {
      const draws = new Map<string, number>();
      const augment = (s: { id: number }, ctx: AugmentContext) => {
        draws.set(`${ctx.epoch}/${ctx.index}`, ctx.rng.next());
        return s;
      };
      const ds = fromArray([{ id: 0 }, { id: 1 }, { id: 2 }, { id: 3 }]);
      const loader = new DataLoader(ds, { batchSize: 2, shuffle, prefetchBatches, augment });
      for (let e = 0; e < 2; e++) for await (const _ of loader);
      return draws;
    };
    const a = await drawsOf(true, 0);
    expect(a.size).toBe(8);
    expect(new Set(a.values()).size).toBe(8);
    expect(await drawsOf(false, 3)).toEqual(a);
  });
});
