// Where loads spend their time, measured where they run: CsvImageDataset times the wait
// for an image's bytes and its decode; a worker pool sums what its workers' datasets
// report (exposeLoader's `phases`); the caching engines put it in their stats and
// diagnose reads it. Real Chromium, real Web Workers, real files over HTTP.
import {
  CsvImageDataset,
  type CsvImageSample,
  createCachedDataset,
  createWorkerExecutor,
  diagnose,
  exposeLoader,
  WebDatasetSource,
  type WorkerExecutor,
} from '@medfusion/web';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS } from '../fixtures-shards/fixtures.js';
import { COLD_START } from '../setup/coldStart.js';

const base = new URL('/tests/web/fixtures/csv-images/', location.origin).href;
const open = (csv = 'manifest.csv') =>
  CsvImageDataset.open({ csvUrl: base + csv, imageBaseUrl: `${base}images/` });

const closers: { close(): unknown }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

// one literal URL per fixture: the bundler resolves `new URL('…', import.meta.url)` statically
const FIXTURES = {
  phases: () =>
    new Worker(new URL('./fixtures/csv-image-phases.worker.ts', import.meta.url), {
      type: 'module',
    }),
  plain: () =>
    new Worker(new URL('./fixtures/csv-image.worker.ts', import.meta.url), { type: 'module' }),
};

function pool(fixture: keyof typeof FIXTURES, poolSize: number) {
  const executor = createWorkerExecutor<CsvImageSample>({
    worker: FIXTURES[fixture],
    poolSize,
    ...COLD_START,
  });
  closers.push(executor);
  return executor;
}

async function loadAll(executor: WorkerExecutor<CsvImageSample>, indices: number[]) {
  const signal = new AbortController().signal;
  return Promise.all(indices.map((i) => executor.run(i, signal)));
}

describe('load phases', () => {
  it('CsvImageDataset times each load it serves; failed loads are not counted', async () => {
    const ds = await open();
    expect(ds.loadPhases()).toBeUndefined();
    const t0 = performance.now();
    for (const i of [0, 1, 2, 3, 4]) await ds.get(i);
    const elapsed = performance.now() - t0;
    const p = ds.loadPhases();
    expect(p).toMatchObject({ loads: 5, threads: 1 });
    expect(p?.sourceMs).toBeGreaterThan(0); // five requests over HTTP take time
    // one load at a time: its two phases are parts of the loop's time, never counted twice
    expect((p?.sourceMs ?? 0) + (p?.decodeMs ?? 0)).toBeLessThanOrEqual(elapsed);
    const missing = await open('missing-image.csv');
    const outcomes = await Promise.allSettled(
      Array.from({ length: missing.length }, (_, i) => missing.get(i)),
    );
    const served = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(served).toBeLessThan(missing.length); // the fixture has a row whose image is missing
    expect(missing.loadPhases()?.loads ?? 0).toBe(served);
  });

  it('a worker pool sums its workers’ reports over its live workers', async () => {
    const executor = pool('phases', 2);
    expect(executor.loadPhases()).toBeUndefined();
    await loadAll(executor, [0, 1, 2, 3, 4, 0, 1, 2]);
    const p = executor.loadPhases();
    expect(p).toMatchObject({ loads: 8, threads: 2 });
    expect(p?.sourceMs).toBeGreaterThan(0);
  });

  it('a pool whose workers report nothing reports nothing', async () => {
    const executor = pool('plain', 2);
    await loadAll(executor, [0, 1, 2]);
    expect(executor.loadPhases()).toBeUndefined();
  });

  it('reach getCacheStats() and diagnose through the engine', async () => {
    const executor = pool('phases', 2);
    const ds = createCachedDataset(await open(), {
      cacheType: 'prefetch',
      executor,
      numWorkers: 4,
    });
    closers.push(ds);
    for (const i of [0, 1, 2, 3, 4]) await ds.get(i);
    const stats = ds.getCacheStats();
    expect(stats.loadPhases).toEqual(executor.loadPhases());
    expect(stats.loadPhases?.loads).toBeGreaterThanOrEqual(5); // prefetches may add some
    const d = diagnose(stats);
    const { loads = 1, sourceMs = 0, decodeMs = 0 } = stats.loadPhases ?? {};
    expect(d.loadPhases?.sourceMs).toBeCloseTo(sourceMs / loads, 6);
    expect(d.loadPhases?.decodeMs).toBeCloseTo(decodeMs / loads, 6);
  });

  it('WebDatasetSource times the wait for a sample’s bytes and its transform', async () => {
    const url = `${inject('shardServers').nginx}${GNU_SHARDS[0].name}`;
    let transforms = 0;
    const source = await WebDatasetSource.open({
      urls: [url],
      transform: async (s) => {
        transforms++;
        await new Promise((r) => setTimeout(r, 20)); // a decode that takes 20 ms
        return s.key;
      },
    });
    expect(source.loadPhases()).toBeUndefined();
    for (const i of [0, 1, 2]) await source.get(i);
    const p = source.loadPhases();
    expect(p).toMatchObject({ loads: 3, threads: 1 });
    expect(transforms).toBe(3);
    expect(p?.decodeMs).toBeGreaterThanOrEqual(3 * 15); // the transform (≥ 20 ms each) is the decode
    expect(p?.sourceMs).toBeGreaterThan(0);
    source.close();
  });

  it('exposeLoader refuses a phases option without loadPhases()', () => {
    expect(() => exposeLoader((i) => i, { phases: 42 as never })).toThrow(
      /phases must have a loadPhases\(\) method .*got 42/,
    );
  });
});
