import {
  createCachedDataset,
  encodeSample,
  ManualClock,
  MemoryStore,
  resolveFingerprint,
  type StoreValue,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { run, TimedSource } from './autotune-fixtures.js';

/** A store whose reads take `readMs` of the manual clock (a disk, 30× faster than the source). */
class TimedStore extends MemoryStore {
  readMs = 0.3;
  constructor(private readonly clock: ManualClock) {
    super();
  }
  override get(key: string): Promise<StoreValue | undefined> {
    return new Promise((resolve, reject) => {
      this.clock.setTimeout(() => super.get(key).then(resolve, reject), this.readMs);
    });
  }
}

const N = 1200;

/** A source of 10 ms loads, a store holding the samples `onDisk` picks, the tiers over them. */
async function tiers(onDisk: (i: number) => boolean) {
  const clock = new ManualClock();
  const src = new TimedSource(N, clock);
  src.latencyMs = 10;
  const store = new TimedStore(clock);
  const prefix = resolveFingerprint(undefined, src);
  for (let i = 0; i < N; i++) {
    if (onDisk(i))
      await store.put(`${prefix}/${i}`, encodeSample({ index: i, data: new Uint8Array(100) }));
  }
  const ds = createCachedDataset(src, { cacheType: 'both', cacheSize: 50, clock, store });
  ds.setPlan(Array.from({ length: N }, (_, i) => i));
  return { clock, src, ds };
}

// The consumer reads a sample every 0.5 ms: 2 reads per ms. The source needs 2 × 10 ms = 20
// loads in flight to keep up; the disk 2 × 0.3 ms < 1.
describe("numWorkers / prefetchSize 'auto' over a disk tier: disk hits and source loads apart", () => {
  it('cold store: reaches the loads in flight the source needs', async () => {
    const { clock, src, ds } = await tiers(() => false);
    await run(ds, clock, 0, 300, 0.5);
    const stall = await run(ds, clock, 300, N, 0.5);
    const t = ds.getCacheStats().tuning!;
    expect(t.numWorkers).toBeGreaterThanOrEqual(20);
    expect(src.maxActive).toBeGreaterThanOrEqual(20);
    expect(stall).toBeLessThan(0.05);
    await ds.close();
  });

  it('warm store: does not keep a source-sized number of loads in flight', async () => {
    const { clock, src, ds } = await tiers(() => true);
    await run(ds, clock, 0, 300, 0.5);
    const stall = await run(ds, clock, 300, N, 0.5);
    const s = ds.getCacheStats();
    expect(s.diskMisses).toBe(0);
    expect(src.maxActive).toBe(0);
    expect(s.tuning!.numWorkers).toBeLessThanOrEqual(8);
    expect(stall).toBeLessThan(0.05);
    await ds.close();
  });

  it('store holding 4 samples in 5: prefetches the source loads far enough ahead', async () => {
    // every fifth sample comes from the source: a load window that mixes 0.3 ms disk hits with
    // 10 ms source loads averages ~2.2 ms, but a source load must start 10 ms before its read
    const { clock, ds } = await tiers((i) => i % 5 !== 0);
    await run(ds, clock, 0, 300, 0.5);
    // the knobs mid-epoch (at the end the last source loads are all that is left to load)
    const stall = await run(ds, clock, 300, N - 100, 0.5);
    const s = ds.getCacheStats();
    expect(s.diskHits).toBeGreaterThan(0);
    expect(s.diskMisses).toBeGreaterThan(0);
    expect(stall).toBeLessThan(0.05);
    // the loads in flight stay those of the mix, not those of a source-only epoch
    expect(s.tuning!.numWorkers).toBeLessThan(20);
    await ds.close();
  });
});
