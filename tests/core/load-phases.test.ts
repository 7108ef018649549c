// Load phases (waiting for bytes vs decoding) reach the caching engines' stats from the
// dataset, or from the executor when it reports them, so diagnose can tell decode CPU
// from source latency.
import {
  createCachedDataset,
  type Dataset,
  type Executor,
  formatCacheReport,
  LoadPhaseCounter,
  type LoadPhaseStats,
  MemoryStore,
  type ReportsLoadPhases,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A source that says each load waited `sourceMs` for bytes and decoded for `decodeMs`. */
class PhasedSource implements Dataset<number>, ReportsLoadPhases {
  readonly phases = new LoadPhaseCounter();
  constructor(
    readonly length: number,
    private readonly sourceMs: number,
    private readonly decodeMs: number,
  ) {}
  async get(index: number): Promise<number> {
    this.phases.record(this.sourceMs, this.decodeMs);
    return index * 2;
  }
  loadPhases(): LoadPhaseStats | undefined {
    return this.phases.snapshot();
  }
}

describe('load phases', () => {
  it('LoadPhaseCounter adds up loads; nothing before the first; bad durations count 0', () => {
    const c = new LoadPhaseCounter();
    expect(c.snapshot()).toBeUndefined();
    c.record(3, 7);
    c.record(-1, Number.NaN);
    c.record(Number.POSITIVE_INFINITY, 1);
    expect(c.snapshot(4)).toEqual({ loads: 3, sourceMs: 3, decodeMs: 8, threads: 4 });
  });

  it('reach the memory engine stats from the dataset, counting source loads only', async () => {
    const source = new PhasedSource(10, 4, 1);
    const ds = createCachedDataset(source, { cacheType: 'lru', cacheSize: 10 });
    expect(ds.getCacheStats().loadPhases).toBeUndefined();
    for (const i of [0, 1, 2, 0, 1]) await ds.get(i);
    expect(ds.getCacheStats().loadPhases).toEqual({
      loads: 3,
      sourceMs: 12,
      decodeMs: 3,
      threads: 1,
    });
    await ds.close();
  });

  it('formatCacheReport prints them per load', async () => {
    const ds = createCachedDataset(new PhasedSource(10, 4, 1.5), { cacheType: 'lru' });
    for (const i of [0, 1, 2, 3]) await ds.get(i);
    expect(formatCacheReport(ds.getCacheStats())).toContain(
      'source loads: 4 timed, per load 4.0 ms waiting for bytes, 1.5 ms decoding (1 loading thread)',
    );
    await ds.close();
  });

  it('reach the tiered stats (disk tier on) from the source; disk hits decode nothing', async () => {
    const store = new MemoryStore();
    const first = createCachedDataset(new PhasedSource(4, 2, 5), {
      cacheType: 'both',
      store,
      cacheSize: 4,
    });
    for (let i = 0; i < 4; i++) await first.get(i);
    expect(first.getCacheStats().loadPhases).toMatchObject({ loads: 4, decodeMs: 20 });
    await first.close();
    // a later visit: every sample from the disk tier, none from the source
    const source = new PhasedSource(4, 2, 5);
    const second = createCachedDataset(source, { cacheType: 'both', store, cacheSize: 4 });
    for (let i = 0; i < 4; i++) await second.get(i);
    expect(second.getCacheStats().diskHits).toBe(4);
    expect(second.getCacheStats().loadPhases).toBeUndefined();
    await second.close();
  });

  it("an executor's report wins over the dataset's (loads run there, not here)", async () => {
    const inPage = new PhasedSource(8, 1, 1);
    await inPage.get(0); // the page's copy has a report of its own
    const remote = new LoadPhaseCounter();
    const executor: Executor<number> & ReportsLoadPhases = {
      async run(index) {
        remote.record(9, 2);
        return index;
      },
      loadPhases: () => remote.snapshot(3),
    };
    for (const cacheType of ['prefetch', 'both'] as const) {
      const ds = createCachedDataset(inPage, {
        cacheType,
        executor,
        ...(cacheType === 'both' ? { store: new MemoryStore() } : {}),
      });
      await ds.get(5);
      expect(ds.getCacheStats().loadPhases).toEqual(remote.snapshot(3));
      await ds.close();
    }
    expect(inPage.phases.loads).toBe(1);
  });
});
