import {
  DataLoader,
  type EvenRanks,
  fromArray,
  IndexPermutation,
  type LoaderState,
  RankPlan,
} from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const ds = (n: number) => fromArray(Array.from({ length: n }, (_, id) => ({ id })));

/** The rest of the current epoch of `loader`, or `batches` batches of it. */
async function take(loader: DataLoader<{ id: number }>, batches = Infinity): Promise<number[]> {
  const out: number[] = [];
  if (batches === 0) return out;
  let n = 0;
  for await (const b of loader) {
    out.push(...b.id!.data);
    if (++n === batches) break;
  }
  return out;
}

function counts(xs: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

describe('ranks: each rank reads a disjoint part of every epoch', () => {
  it('parts are disjoint and together the epoch once; pad repeats from the start, drop leaves the tail (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 1, max: 9 }),
        fc.nat(2 ** 31),
        fc.nat(5),
        fc.constantFrom<EvenRanks>('pad', 'drop'),
        (n, worldSize, seed, epoch, evenRanks) => {
          const order = new IndexPermutation(n, seed, epoch);
          const parts = Array.from({ length: worldSize }, (_, rank) =>
            Array.from(new RankPlan(order, { rank, worldSize, evenRanks })),
          );
          const each = evenRanks === 'pad' ? Math.ceil(n / worldSize) : Math.floor(n / worldSize);
          for (const part of parts) expect(part.length).toBe(each);
          const all = parts.flat();
          const c = counts(all);
          const full = Array.from(order);
          if (evenRanks === 'drop') {
            // the first worldSize * each positions of the order, each once
            expect([...c.values()].every((v) => v === 1)).toBe(true);
            expect(new Set(all)).toEqual(new Set(full.slice(0, worldSize * each)));
          } else {
            // every index, and the padding repeats the first positions of the order
            expect(new Set(all)).toEqual(new Set(full));
            const expected = new Map(full.map((i) => [i, 1]));
            for (let j = n; j < worldSize * each; j++) {
              const i = full[j % n]!;
              expected.set(i, expected.get(i)! + 1);
            }
            expect(c).toEqual(expected);
            // no rank reads one index twice
            for (const part of parts) expect(new Set(part).size).toBe(part.length);
          }
          // PyTorch's DistributedSampler: rank r reads positions r, r + worldSize, ...
          if (n > 0 && each > 0) expect(parts[worldSize - 1]![0]).toBe(full[(worldSize - 1) % n]);
          // positionOf inverts indexAt on each part
          for (const [rank, part] of parts.entries()) {
            const plan = new RankPlan(order, { rank, worldSize, evenRanks });
            part.forEach((i, p) => {
              expect(plan.positionOf!(i)).toBe(p);
            });
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('is deterministic from seed and epoch, and the loaders of all ranks cover each epoch once', async () => {
    const n = 103;
    const worldSize = 4;
    for (let epoch = 0; epoch < 2; epoch++) {
      const seen: number[] = [];
      for (let rank = 0; rank < worldSize; rank++) {
        const loader = new DataLoader(ds(n), {
          batchSize: 5,
          shuffle: true,
          seed: 9,
          rank,
          worldSize,
          evenRanks: 'drop',
          resumeFrom: { seed: 9, epoch, cursor: 0 },
        });
        expect(loader.length).toBe(Math.ceil(25 / 5));
        const part = await take(loader);
        expect(part).toEqual(
          await take(
            new DataLoader(ds(n), {
              batchSize: 5,
              shuffle: true,
              seed: 9,
              rank,
              worldSize,
              evenRanks: 'drop',
              resumeFrom: { seed: 9, epoch, cursor: 0 },
            }),
          ),
        );
        seen.push(...part);
      }
      expect(seen.length).toBe(100);
      expect(new Set(seen).size).toBe(100);
    }
  });

  it('3 epochs with a resume from 4 ranks to 3 in the middle: every index once per epoch across ranks', async () => {
    const n = 120; // 30 per rank at 4, 40 per rank at 3 after 2 batches of 5 (80 left: pad to 81)
    const opts = { batchSize: 5, shuffle: true, seed: 77, evenRanks: 'drop' as const };
    const perEpoch: number[][] = [[], [], []];
    const four = Array.from(
      { length: 4 },
      (_, rank) => new DataLoader(ds(n), { ...opts, rank, worldSize: 4 }),
    );
    // epoch 0 whole at 4 ranks, then 2 batches of epoch 1, all ranks in step
    for (const l of four) perEpoch[0]!.push(...(await take(l)));
    for (const l of four) perEpoch[1]!.push(...(await take(l, 2)));
    const saved: LoaderState[] = four.map((l) => JSON.parse(JSON.stringify(l.state())));
    // every rank saved the same state
    for (const s of saved) expect(s).toEqual(saved[0]);
    expect(saved[0]).toEqual({ seed: 77, epoch: 1, cursor: 2, position: 40 });
    const three = Array.from(
      { length: 3 },
      (_, rank) => new DataLoader(ds(n), { ...opts, rank, worldSize: 3, resumeFrom: saved[0] }),
    );
    for (const l of three) perEpoch[1]!.push(...(await take(l)));
    for (const l of three) expect(l.epoch).toBe(2);
    for (const l of three) perEpoch[2]!.push(...(await take(l)));
    for (const e of perEpoch) {
      expect(e.length).toBe(n - (e === perEpoch[1] ? 80 % 3 : 0));
      expect(new Set(e).size).toBe(e.length);
    }
    expect(new Set(perEpoch[0])).toEqual(new Set(Array.from({ length: n }, (_, i) => i)));
    expect(new Set(perEpoch[2])).toEqual(new Set(Array.from({ length: n }, (_, i) => i)));
    // the two indices 'drop' left out are the last two positions of the epoch's order
    const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !perEpoch[1]!.includes(i));
    const order1 = Array.from(new IndexPermutation(n, 77, 1));
    expect(new Set(missing)).toEqual(new Set(order1.slice(n - 2)));
  });

  it('a resume at 4 → 2 and 4 → 8 ranks delivers the rest of the epoch exactly once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(1, 2, 3, 8),
        fc.nat(1000),
        async (n, batchSize, stopAfter, nextWorld, seed) => {
          const opts = { batchSize, shuffle: true, seed, evenRanks: 'pad' as const };
          const four = Array.from(
            { length: 4 },
            (_, rank) => new DataLoader(ds(n), { ...opts, rank, worldSize: 4 }),
          );
          const before: number[] = [];
          const steps = Math.min(stopAfter, four[0]!.length);
          for (const l of four) before.push(...(await take(l, steps)));
          const state = four[0]!.state();
          const next = Array.from(
            { length: nextWorld },
            (_, rank) =>
              new DataLoader(ds(n), { ...opts, rank, worldSize: nextWorld, resumeFrom: state }),
          );
          const after: number[] = [];
          for (const l of next) if (l.epoch === 0) after.push(...(await take(l)));
          // every index of the epoch was read; only padding repeats, and only from the order's start
          const all = [...before, ...after];
          expect(new Set(all)).toEqual(new Set(Array.from({ length: n }, (_, i) => i)));
          const c = counts(after);
          for (const i of before) expect(c.has(i)).toBe(false);
          const repeats = all.length - n;
          expect(repeats).toBeLessThan(4 + nextWorld);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses bad rank options, naming the option and the value', () => {
    const d = ds(10);
    expect(() => new DataLoader(d, { rank: 4, worldSize: 4 })).toThrow(
      new RangeError('rank must be below worldSize 4, got 4'),
    );
    expect(() => new DataLoader(d, { worldSize: 0 })).toThrow(RangeError);
    expect(() => new DataLoader(d, { worldSize: 0 })).toThrow(/worldSize.*got 0/);
    expect(() => new DataLoader(d, { worldSize: 2.5 })).toThrow(/worldSize.*got 2\.5/);
    expect(() => new DataLoader(d, { rank: 1.5, worldSize: 4 })).toThrow(/rank.*got 1\.5/);
    expect(() => new DataLoader(d, { rank: -1, worldSize: 4 })).toThrow(RangeError);
    expect(() => new DataLoader(d, { worldSize: '4' as unknown as number })).toThrow(TypeError);
    expect(() => new DataLoader(d, { evenRanks: 'even' as EvenRanks })).toThrow(
      /evenRanks.*"even"/,
    );
    expect(
      () =>
        new DataLoader(d, {
          worldSize: 2,
          resumeFrom: { seed: 0, epoch: 0, cursor: 0, position: 11 },
        }),
    ).toThrow(/resumeFrom.position 11/);
  });
});
