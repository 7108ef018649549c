import { createCachedDataset, DataLoader, fromLoader, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A source whose loads take 10 ms of (manual) time; counts loads per index. */
function slowSource(n: number, clock: ManualClock) {
  const loads = new Map<number, number>();
  const ds = fromLoader(n, (i, signal) => {
    loads.set(i, (loads.get(i) ?? 0) + 1);
    return new Promise<{ x: Float32Array; label: number }>((resolve, reject) => {
      const t = clock.setTimeout(() => resolve({ x: Float32Array.of(i, 2 * i), label: i % 5 }), 10);
      signal?.addEventListener('abort', () => {
        clock.clearTimeout(t);
        reject(signal.reason);
      });
    });
  });
  return { ds, loads };
}

async function drainEpoch(loader: DataLoader, clock: ManualClock): Promise<number[]> {
  const ids: number[] = [];
  const run = (async () => {
    for await (const b of loader) {
      const x = b.x!.data;
      for (let k = 0; k < b.label!.shape[0]!; k++) {
        expect(x[2 * k + 1]).toBe(2 * x[2 * k]!); // each row is one intact sample
        ids.push(x[2 * k]!);
      }
    }
  })();
  let done = false;
  void run.finally(() => {
    done = true;
  });
  for (let guard = 0; !done && guard < 10_000; guard++) await clock.advance(1);
  await run;
  return ids;
}

describe('DataLoader over createCachedDataset', () => {
  it('hands each epoch plan to the cache; epoch 2 is served from memory in the planned order', async () => {
    const clock = new ManualClock();
    const n = 40;
    const { ds, loads } = slowSource(n, clock);
    const cached = createCachedDataset(ds, {
      cacheType: 'both',
      cacheSize: n,
      prefetchSize: 8,
      numWorkers: 4,
      clock,
    });
    const loader = new DataLoader(cached, { batchSize: 6, shuffle: true, seed: 21 });
    const e0 = await drainEpoch(loader, clock);
    expect(e0).toEqual(Array.from(loader.orderOf(0)));
    const statsAfter0 = cached.getCacheStats();
    const e1 = await drainEpoch(loader, clock);
    expect(e1).toEqual(Array.from(loader.orderOf(1)));
    expect([...loads.values()].every((c) => c === 1)).toBe(true); // nothing loaded twice
    expect(loads.size).toBe(n);
    const stats = cached.getCacheStats();
    expect(stats.hits - statsAfter0.hits).toBe(n); // every read of epoch 2 hit
    await cached.close();
  });
});
