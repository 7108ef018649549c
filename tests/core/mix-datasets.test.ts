import {
  createCachedDataset,
  DataLoader,
  type Dataset,
  fromArray,
  type LoaderState,
  mixDatasets,
  type PlanAware,
} from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type S = { src: number; id: number };
const source = (src: number, n: number): Dataset<S> =>
  fromArray(Array.from({ length: n }, (_, id) => ({ src, id })));

/** A source that records the plans it is told (as remote shards do). */
function recording(src: number, n: number) {
  const plans: number[][] = [];
  const ds: Dataset<S> & PlanAware = {
    length: n,
    get: (id) => ({ src, id }),
    setPlan: (order) => {
      plans.push(Array.from(order));
    },
  };
  return { ds, plans };
}

async function epoch(loader: DataLoader<S>, batches = Infinity): Promise<[number, number][]> {
  const out: [number, number][] = [];
  if (batches === 0) return out;
  let k = 0;
  for await (const b of loader) {
    for (let i = 0; i < b.src!.data.length; i++) out.push([b.src!.data[i]!, b.id!.data[i]!]);
    if (++k === batches) break;
  }
  return out;
}

describe('mixDatasets: weighted sampling from several data sets', () => {
  it('draws each source within ±1 point of its weight over 100,000 draws, for several seeds', () => {
    for (const seed of [0, 1, 42, 2 ** 40]) {
      const mix = mixDatasets([source(0, 1000), source(1, 5000), source(2, 300)], {
        weights: [5, 3, 2], // 0.5 / 0.3 / 0.2 after normalising
        seed,
        onExhausted: 'repeat',
        length: 100_000,
      });
      expect(mix.length).toBe(100_000);
      const n = [0, 0, 0];
      for (let i = 0; i < mix.length; i++) n[mix.sourceOf(i).source]!++;
      expect(Math.abs(n[0]! / 1e5 - 0.5)).toBeLessThan(0.01);
      expect(Math.abs(n[1]! / 1e5 - 0.3)).toBeLessThan(0.01);
      expect(Math.abs(n[2]! / 1e5 - 0.2)).toBeLessThan(0.01);
      // and in every stretch of 5,000 draws as well, not only over the whole
      for (let s = 0; s < mix.length; s += 5000) {
        let a = 0;
        for (let i = s; i < s + 5000; i++) if (mix.sourceOf(i).source === 2) a++;
        expect(Math.abs(a / 5000 - 0.2)).toBeLessThan(0.01);
      }
    }
  });

  it('is a function of the seed: the same mix twice, another with another seed', () => {
    const make = (seed: number) =>
      mixDatasets([source(0, 50), source(1, 70)], { weights: [0.4, 0.6], seed });
    const a = Array.from({ length: 120 }, (_, i) => make(3).sourceOf(i));
    expect(Array.from({ length: 120 }, (_, i) => make(3).sourceOf(i))).toEqual(a);
    expect(Array.from({ length: 120 }, (_, i) => make(4).sourceOf(i))).not.toEqual(a);
  });

  it("'renormalize' (the default) draws every sample of every source once, then ends", () => {
    const mix = mixDatasets([source(0, 3000), source(1, 200), source(2, 1500)], {
      weights: [0.5, 0.3, 0.2],
      seed: 5,
    });
    expect(mix.length).toBe(4700);
    const seen = new Set<string>();
    for (let i = 0; i < mix.length; i++) {
      const { source: s, index } = mix.sourceOf(i);
      seen.add(`${s}:${index}`);
    }
    expect(seen.size).toBe(4700);
    // the small source runs out early: in the first 400 draws it had its share
    let early = 0;
    for (let i = 0; i < 400; i++) if (mix.sourceOf(i).source === 1) early++;
    expect(Math.abs(early / 400 - 0.3)).toBeLessThan(0.05);
  });

  it("'renormalize' draws each sample of each weighted source once; 'stop' at most once (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(2000), fc.constantFrom(0, 0.1, 1, 2.5, 7)), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.nat(1000),
        fc.constantFrom('renormalize' as const, 'stop' as const),
        (spec, seed, onExhausted) => {
          if (spec.every(([, w]) => w === 0)) spec[0]![1] = 1;
          const mix = mixDatasets(
            spec.map(([n], j) => source(j, n)),
            { weights: spec.map(([, w]) => w), seed, onExhausted },
          );
          const seen = new Set<number>();
          for (let i = 0; i < mix.length; i++) {
            const at = mix.sourceOf(i);
            expect(spec[at.source]![1]).toBeGreaterThan(0);
            seen.add(at.source * 4096 + at.index);
          }
          expect(seen.size).toBe(mix.length);
          if (onExhausted === 'renormalize') {
            expect(mix.length).toBe(spec.reduce((a, [n, w]) => a + (w > 0 ? n : 0), 0));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("'stop' ends where the first source runs out, each sample drawn at most once", () => {
    const mix = mixDatasets([source(0, 3000), source(1, 200), source(2, 1500)], {
      weights: [0.5, 0.3, 0.2],
      seed: 5,
      onExhausted: 'stop',
    });
    // source 1 (200 samples at 0.3) runs out after about 667 draws
    expect(Math.abs(mix.length - 200 / 0.3)).toBeLessThan(1024 * 0.5 + 2);
    const per = [new Set<number>(), new Set<number>(), new Set<number>()];
    let draws = 0;
    for (let i = 0; i < mix.length; i++) {
      const { source: s, index } = mix.sourceOf(i);
      per[s]!.add(index);
      draws++;
    }
    expect(per[0]!.size + per[1]!.size + per[2]!.size).toBe(draws);
    expect(per[1]!.size).toBe(200);
  });

  it("'repeat' starts a source again in a fresh order: every index equally often", () => {
    const mix = mixDatasets([source(0, 10), source(1, 1000)], {
      weights: [0.5, 0.5],
      seed: 2,
      onExhausted: 'repeat',
      length: 2048, // two whole blocks: the small source's draws 0..1023
    });
    const small: number[] = [];
    for (let i = 0; i < mix.length; i++) {
      const at = mix.sourceOf(i);
      if (at.source === 0) small.push(at.index);
    }
    expect(small.length).toBe(1024);
    const c = new Map<number, number>();
    for (const i of small) c.set(i, (c.get(i) ?? 0) + 1);
    expect([...c.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...c.values()].filter((v) => v === 103).length).toBe(4);
    expect([...c.values()].filter((v) => v === 102).length).toBe(6);
  });

  it('a DataLoader over the mix resumes exactly: first part + resumed part = the uninterrupted epochs', async () => {
    const mix = () =>
      mixDatasets([source(0, 40), source(1, 90), source(2, 25)], {
        weights: [0.2, 0.5, 0.3],
        seed: 9,
        onExhausted: 'repeat',
        length: 150,
      });
    const opts = { batchSize: 8, shuffle: true, seed: 9 };
    const full = new DataLoader(mix(), opts);
    const whole = [...(await epoch(full)), ...(await epoch(full))];
    const first = new DataLoader(mix(), opts);
    const part = await epoch(first, 7);
    const state: LoaderState = JSON.parse(JSON.stringify(first.state()));
    const resumed = new DataLoader(mix(), { ...opts, resumeFrom: state });
    const rest = [...(await epoch(resumed)), ...(await epoch(resumed))];
    expect([...part, ...rest]).toEqual(whole);
  });

  it("tells each source its own share of the loader's plan, so its cache prefetches it", async () => {
    const a = recording(0, 60);
    const b = recording(1, 45);
    const mix = mixDatasets([a.ds, b.ds], { weights: [0.7, 0.3], seed: 1 });
    const loader = new DataLoader(mix, { batchSize: 10, shuffle: true, seed: 4 });
    const read = await epoch(loader);
    expect(a.plans).toEqual([read.filter(([s]) => s === 0).map(([, i]) => i)]);
    expect(b.plans).toEqual([read.filter(([s]) => s === 1).map(([, i]) => i)]);

    // each source behind its own prefetching cache: the prefetched samples are the ones read
    const slow = (src: number, n: number): Dataset<S> => ({
      length: n,
      get: async (id) => {
        await new Promise((r) => setTimeout(r, 1));
        return { src, id };
      },
    });
    const ca = createCachedDataset(slow(0, 60), {
      cacheType: 'both',
      cacheSize: 10,
      prefetchSize: 8,
      numWorkers: 4,
    });
    const cb = createCachedDataset(slow(1, 45), {
      cacheType: 'both',
      cacheSize: 10,
      prefetchSize: 8,
      numWorkers: 4,
    });
    const cached = mixDatasets([ca, cb], { weights: [0.7, 0.3], seed: 1 });
    const l2 = new DataLoader(cached, {
      batchSize: 10,
      shuffle: true,
      seed: 4,
      prefetchBatches: 0,
    });
    expect(await epoch(l2)).toEqual(read);
    const sa = ca.getCacheStats();
    const sb = cb.getCacheStats();
    expect(sa.prefetch!.used).toBeGreaterThan(0);
    expect(sb.prefetch!.used).toBeGreaterThan(0);
    expect(sa.prefetch!.wasted + sb.prefetch!.wasted).toBe(0);
    await ca.close();
    await cb.close();
  });

  it('refuses bad weights, naming the value', () => {
    const two = [source(0, 5), source(1, 5)];
    expect(() => mixDatasets(two, { weights: [1, -0.5] })).toThrow(
      new RangeError('weights[1] must be a finite number ≥ 0, got -0.5'),
    );
    expect(() => mixDatasets(two, { weights: [0, 0] })).toThrow(
      new RangeError('weights must not all be zero, got [0, 0]'),
    );
    expect(() => mixDatasets(two, { weights: [Number.NaN, 1] })).toThrow(/weights\[0\].*NaN/);
    expect(() => mixDatasets(two, { weights: [1, Infinity] })).toThrow(/weights\[1\].*Infinity/);
    expect(() => mixDatasets(two, { weights: [1] })).toThrow(
      new RangeError('weights has 1 entries for 2 sources: give one weight per source'),
    );
    expect(() => mixDatasets(two, { weights: [1, '2' as unknown as number] })).toThrow(TypeError);
    expect(() => mixDatasets(two, { weights: [1, 1], onExhausted: 'cycle' as 'repeat' })).toThrow(
      /onExhausted.*"cycle"/,
    );
    expect(() => mixDatasets([], { weights: [] })).toThrow(TypeError);
    expect(() =>
      mixDatasets([source(0, 0), source(1, 3)], { weights: [1, 1], onExhausted: 'repeat' }),
    ).toThrow(/source 0 has no samples to repeat/);
  });
});
