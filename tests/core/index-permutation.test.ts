import { DataLoader, fromArray, IndexPermutation, shuffledOrder } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('IndexPermutation', () => {
  it('is a bijection of [0, n) whose positionOf inverts indexAt', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 600 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (n, seed, epoch) => {
          const perm = new IndexPermutation(n, seed, epoch);
          const seen = new Uint8Array(n);
          let bad = 0;
          for (let p = 0; p < n; p++) {
            const i = perm.indexAt(p);
            if (!(i >= 0 && i < n && seen[i] === 0) || perm.positionOf(i) !== p) bad++;
            else seen[i] = 1;
          }
          expect(bad).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('is exact up to 2^53 (both directions, positions past 2^32)', () => {
    for (const n of [2 ** 32 + 3, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      const perm = new IndexPermutation(n, 12345, 6);
      for (const p of [0, 1, 2 ** 32 - 1, 2 ** 32, n - 2, n - 1]) {
        const i = perm.indexAt(p);
        expect(Number.isSafeInteger(i) && i >= 0 && i < n).toBe(true);
        expect(perm.positionOf(i)).toBe(p);
      }
    }
    expect(() => new IndexPermutation(2 ** 53, 0, 0)).toThrow(/length must be below 2\^53/);
    expect(() => new IndexPermutation(10, -1, 0)).toThrow(/seed/);
    expect(() => new IndexPermutation(10, 0, 0, 2 ** 32)).toThrow(/stream/);
  });

  it('defines a stable order (these values must never change)', () => {
    expect(Array.from(new IndexPermutation(10, 42, 0))).toEqual([2, 1, 4, 3, 9, 7, 8, 6, 0, 5]);
    const big = new IndexPermutation(1e9, 7, 3);
    expect([0, 1, 2, 999_999_999].map((p) => big.indexAt(p))).toEqual([
      463892320, 972389962, 826288059, 984292146,
    ]);
    const max = new IndexPermutation(Number.MAX_SAFE_INTEGER, 1, 2 ** 40);
    expect([0, 2 ** 53 - 2].map((p) => max.indexAt(p))).toEqual([201841820144964, 247349477448607]);
    expect(Array.from(shuffledOrder(10, 42, 0))).toEqual([2, 1, 4, 3, 9, 7, 8, 6, 0, 5]);
  });

  it('gives the same order once it has tabulated its rounds (long reads) as position by position', () => {
    // A fresh permutation asked for one position computes its rounds directly; one asked for a
    // whole epoch switches to tables after about 2^lo + 2^hi positions. Both must agree everywhere.
    for (const [n, seed, epoch] of [
      [5000, 3, 1],
      [65_537, 2 ** 40 + 5, 9],
      [100_000, 11, 2 ** 33],
    ] as const) {
      const whole = new IndexPermutation(n, seed, epoch);
      const order = Array.from(whole);
      for (let p = 0; p < n; p += 97) {
        expect(order[p]).toBe(new IndexPermutation(n, seed, epoch).indexAt(p));
        expect(whole.positionOf(order[p]!)).toBe(p);
        expect(new IndexPermutation(n, seed, epoch).positionOf(order[p]!)).toBe(p);
      }
      expect(order[n - 1]).toBe(new IndexPermutation(n, seed, epoch).indexAt(n - 1));
    }
  });

  it('puts every index at every position equally often over seeds (chi-square)', () => {
    const n = 8;
    const seeds = 4000;
    const counts = new Float64Array(n * n);
    for (let seed = 0; seed < seeds; seed++) {
      const perm = new IndexPermutation(n, seed, 0);
      for (let p = 0; p < n; p++) counts[p * n + perm.indexAt(p)]!++;
    }
    const expected = seeds / n;
    let chi2 = 0;
    for (const c of counts) chi2 += (c - expected) ** 2 / expected;
    // 49 degrees of freedom: the 99.9 % quantile is 85.4
    expect(chi2).toBeLessThan(85.4);
  });

  it('leaves no structure between consecutive epochs', () => {
    const n = 2000;
    let fixed = 0;
    let adjacent = 0;
    let rho = 0;
    const pairs = 20;
    for (let e = 0; e < pairs; e++) {
      const a = new IndexPermutation(n, 99, e);
      const b = new IndexPermutation(n, 99, e + 1);
      let d2 = 0;
      for (let p = 0; p < n; p++) {
        const i = a.indexAt(p);
        const q = b.positionOf(i);
        if (q === p) fixed++;
        d2 += (q - p) ** 2;
        if (p + 1 < n && Math.abs(b.positionOf(a.indexAt(p + 1)) - q) === 1) adjacent++;
      }
      rho += 1 - (6 * d2) / (n * (n * n - 1));
    }
    // a uniform pair of permutations: ~1 fixed point and ~2 kept neighbours per pair, ρ ≈ 0
    expect(fixed / pairs).toBeLessThan(3);
    expect(adjacent / pairs).toBeLessThan(5);
    expect(Math.abs(rho / pairs)).toBeLessThan(4 / Math.sqrt(n * pairs));
  });

  it('is the order of a shuffled DataLoader, read position by position', async () => {
    const ds = fromArray(Array.from({ length: 50 }, (_, i) => ({ id: i })));
    const loader = new DataLoader(ds, { batchSize: 50, shuffle: true, seed: 3 });
    const plan = loader.planOf(0);
    expect(plan).toBeInstanceOf(IndexPermutation);
    for await (const batch of loader) {
      expect(Array.from(batch.id!.data)).toEqual(Array.from(new IndexPermutation(50, 3, 0)));
    }
  });
});
