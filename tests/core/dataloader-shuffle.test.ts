import { DataLoader, fromArray, philox4x32, shuffledOrder } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const hex = (words: Uint32Array) => Array.from(words, (w) => w.toString(16).padStart(8, '0'));

async function epochOrder(loader: DataLoader<{ id: number }>): Promise<number[]> {
  const seen: number[] = [];
  for await (const batch of loader) seen.push(...Array.from(batch.id!.data));
  return seen;
}

describe('seeded shuffle', () => {
  it('Philox4x32-10 matches the Random123 known-answer vectors', () => {
    const out = new Uint32Array(4);
    expect(hex(philox4x32(0, 0, 0, 0, 0, 0, out))).toEqual([
      '6627e8d5',
      'e169c58d',
      'bc57ac4c',
      '9b00dbd8',
    ]);
    const m = 0xffffffff;
    expect(hex(philox4x32(m, m, m, m, m, m, out))).toEqual([
      '408f276d',
      '41c83b0e',
      'a20bc7c6',
      '6d5451fd',
    ]);
    expect(
      hex(philox4x32(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, out)),
    ).toEqual(['d16cfe09', '94fdcceb', '5001e420', '24126ea1']);
  });

  it('an epoch order is a permutation, fixed by (n, seed, epoch)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (n, seed, epoch) => {
          const order = shuffledOrder(n, seed, epoch);
          expect(Array.from(order).sort((a, b) => a - b)).toEqual(
            Array.from({ length: n }, (_, i) => i),
          );
          expect(shuffledOrder(n, seed, epoch)).toEqual(order);
        },
      ),
    );
  });

  it('differs with another seed and across epochs', () => {
    const a = shuffledOrder(1000, 1, 0);
    expect(shuffledOrder(1000, 2, 0)).not.toEqual(a);
    expect(shuffledOrder(1000, 1, 1)).not.toEqual(a);
    expect(shuffledOrder(1000, 2 ** 32 + 1, 0)).not.toEqual(a); // high seed bits matter
    expect(shuffledOrder(1000, 1, 2 ** 32)).not.toEqual(a); // high epoch bits matter
  });

  it('is not biased toward the identity (each position moves about as often as chance says)', () => {
    // For a uniform permutation of n, the expected number of fixed points is 1.
    let fixed = 0;
    const runs = 200;
    for (let e = 0; e < runs; e++) {
      const o = shuffledOrder(50, 9, e);
      for (let i = 0; i < 50; i++) if (o[i] === i) fixed++;
    }
    expect(fixed / runs).toBeGreaterThan(0.6);
    expect(fixed / runs).toBeLessThan(1.4);
  });

  it('a shuffled loader reads a permutation per epoch, the same for the same seed', async () => {
    const ds = fromArray(Array.from({ length: 103 }, (_, id) => ({ id })));
    const a = new DataLoader(ds, { batchSize: 10, shuffle: true, seed: 5 });
    const b = new DataLoader(ds, { batchSize: 10, shuffle: true, seed: 5 });
    const c = new DataLoader(ds, { batchSize: 10, shuffle: true, seed: 6 });
    const a0 = await epochOrder(a);
    const a1 = await epochOrder(a);
    expect([...a0].sort((x, y) => x - y)).toEqual(Array.from({ length: 103 }, (_, i) => i));
    expect(a0).toEqual(Array.from(shuffledOrder(103, 5, 0)));
    expect(a1).toEqual(Array.from(shuffledOrder(103, 5, 1)));
    expect(a1).not.toEqual(a0);
    expect(await epochOrder(b)).toEqual(a0);
    expect(await epochOrder(c)).not.toEqual(a0);
    expect(a.epoch).toBe(2);
  });

  it('without shuffle reads in index order', async () => {
    const ds = fromArray(Array.from({ length: 7 }, (_, id) => ({ id })));
    expect(await epochOrder(new DataLoader(ds, { batchSize: 3 }))).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});
