import { beladyHitRate, createCachedDataset, fromLoader, ManualClock } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The textbook O(n·C) simulation of Belady's MIN with bypass: the model. */
function naiveBelady(trace: number[], capacity: number): number {
  const held = new Set<number>();
  let hits = 0;
  const nextUse = (key: number, after: number) => {
    for (let q = after + 1; q < trace.length; q++) if (trace[q] === key) return q;
    return Number.POSITIVE_INFINITY;
  };
  trace.forEach((key, p) => {
    if (held.has(key)) {
      hits++;
      return;
    }
    if (capacity === 0) return;
    if (held.size < capacity) {
      held.add(key);
      return;
    }
    let victim = key;
    let farthest = nextUse(key, p);
    for (const k of held) {
      const n = nextUse(k, p);
      if (n > farthest) {
        farthest = n;
        victim = k;
      }
    }
    if (victim !== key) {
      held.delete(victim);
      held.add(key);
    }
  });
  return hits;
}

const traces = fc.record({
  trace: fc.array(fc.integer({ min: 0, max: 11 }), { minLength: 0, maxLength: 60 }),
  capacity: fc.integer({ min: 0, max: 6 }),
});

describe('Belady against the textbook model', () => {
  it('beladyHitRate equals the O(n·C) simulation on random traces', () => {
    fc.assert(
      fc.property(traces, ({ trace, capacity }) => {
        expect(beladyHitRate(trace, capacity, { keySpace: 12 }).hits).toBe(
          naiveBelady(trace, capacity),
        );
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it('the engine with a plan makes exactly the optimal number of loads', async () => {
    await fc.assert(
      fc.asyncProperty(traces, async ({ trace, capacity }) => {
        let loads = 0;
        const ds = createCachedDataset(
          fromLoader(12, (i) => {
            loads++;
            return i;
          }),
          { cacheType: 'both', cacheSize: capacity, prefetchSize: 3, clock: new ManualClock() },
        );
        ds.setPlan(trace);
        for (const i of trace) expect(await ds.get(i)).toBe(i);
        await ds.close();
        expect(loads).toBe(trace.length - naiveBelady(trace, capacity));
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});
