import { CachingEngine, flushMicrotasks, ManualClock, PrefetchDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { type Sample, ScriptedSource } from './prefetch-scripted.js';

/** Small seeded PRNG (mulberry32) so the scripted completion order is reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Engine = PrefetchDataset<Sample> | CachingEngine<Sample>;

/**
 * Read `plan` with up to `window` gets outstanding (like the DataLoader),
 * completing pending loads in a random order, checking the invariants after
 * every step.
 */
async function drive(
  ds: Engine,
  src: ScriptedSource,
  plan: number[],
  window: number,
  seed: number,
) {
  const rand = prng(seed);
  const results: (number | undefined)[] = new Array(plan.length);
  let next = 0;
  let done = 0;
  const check = () => {
    expect(src.inFlight).toBeLessThanOrEqual(src.limit);
    const pending = src.pendingIndices();
    expect(new Set(pending).size).toBe(pending.length); // never two loads of one sample at once
  };
  while (done < plan.length) {
    while (next < plan.length && next - done < window) {
      const at = next++;
      Promise.resolve(ds.get(plan[at]!)).then((v) => {
        results[at] = v.index;
        done++;
      });
      check();
    }
    await flushMicrotasks();
    const pending = src.pendingIndices();
    if (pending.length > 0) {
      src.resolve(pending[Math.floor(rand() * pending.length)]!);
      await flushMicrotasks();
    }
    check();
  }
  expect(results).toEqual(plan);
}

function randomPlan(n: number, length: number, seed: number): number[] {
  const rand = prng(seed);
  return Array.from({ length: n }, () => Math.floor(rand() * length));
}

describe('loads at once never exceed numWorkers; one sample never loads twice at once', () => {
  for (const numWorkers of [1, 2, 3]) {
    it(`prefetch only, numWorkers ${numWorkers}`, async () => {
      const src = Object.assign(new ScriptedSource(30), { limit: numWorkers });
      const ds = new PrefetchDataset(src, {
        prefetchSize: 5,
        numWorkers,
        clock: new ManualClock(),
      });
      const plan = randomPlan(80, 30, numWorkers);
      ds.setPlan(plan);
      await drive(ds, src, plan, 4, 11 * numWorkers);
      expect(src.maxActive).toBeLessThanOrEqual(numWorkers);
      expect(src.maxActive).toBe(numWorkers); // and the workers were actually used
      await ds.close();
    });
  }

  it('cache + prefetch with concurrent reads: each sample is loaded exactly once', async () => {
    const src = Object.assign(new ScriptedSource(25), { limit: 2 });
    const ds = new CachingEngine(src, {
      cacheSize: 25,
      prefetchSize: 6,
      numWorkers: 2,
      clock: new ManualClock(),
    });
    const plan = randomPlan(100, 25, 5);
    ds.setPlan(plan);
    await drive(ds, src, plan, 5, 99);
    for (const i of new Set(plan)) expect(src.loadsOf(i)).toBe(1);
    expect(src.calls.length).toBe(new Set(plan).size);
    await ds.close();
  });
});
