// The read-ahead's CachedPlan: the same indices as the plan it wraps, whatever the order of the
// positions asked, and each position of a sliding horizon asked of the wrapped plan once.
import { ShardOrder } from '@medfusion/core';
import { CachedPlan } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';

/** A ShardOrder of 40 shards of 37-61 samples, 4 spans (what a rank of 4 reads with). */
function order(): ShardOrder {
  const shardSizes = Array.from({ length: 40 }, (_, s) => 37 + ((s * 7) % 25));
  return new ShardOrder({ shardSizes, seed: 3, epoch: 2, spans: 4 });
}

describe('CachedPlan', () => {
  it('gives the wrapped plan’s index at every position, asked in any order', () => {
    const base = order();
    const cached = new CachedPlan(order(), 100);
    expect(cached.length).toBe(base.length);
    // forward, backward, repeated, and jumps past the capacity
    const asks: number[] = [];
    for (let p = 0; p < base.length; p++) asks.push(p);
    for (let p = base.length - 1; p >= 0; p -= 3) asks.push(p, p, Math.floor(p / 2));
    let x = 12345;
    for (let k = 0; k < 3000; k++) {
      x = (x * 1103515245 + 12345) >>> 0;
      asks.push(x % base.length);
    }
    for (const p of asks) expect(cached.indexAt(p), `position ${p}`).toBe(base.indexAt(p));
    expect([...cached]).toEqual([...base]);
    for (const i of [0, 17, base.length - 1])
      expect(cached.positionOf?.(i)).toBe(base.positionOf(i));
  });

  it('asks the wrapped plan once per position of a horizon that slides within its capacity', () => {
    const base = order();
    let asked = 0;
    const counting = {
      length: base.length,
      indexAt: (p: number) => {
        asked++;
        return base.indexAt(p);
      },
      [Symbol.iterator]: () => base[Symbol.iterator](),
    };
    const cached = new CachedPlan(counting, 256);
    // a read-ahead's pattern: the cursor, then the next 4 × 32 positions, again and again
    for (let cursor = 0; cursor < base.length; cursor++)
      for (let p = cursor; p < Math.min(base.length, cursor + 128); p += 16) cached.indexAt(p);
    expect(asked).toBeLessThanOrEqual(base.length);
    expect(asked).toBeGreaterThan(base.length / 2);
  });

  it('refuses a capacity that is not a positive integer, naming it', () => {
    for (const bad of [0, -1, 2.5, Number.NaN]) {
      expect(() => new CachedPlan(order(), bad)).toThrow(/capacity/);
    }
  });
});
