import { CachingEngine, createWorkerExecutor, Speculation } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { COLD_START, COLD_WAIT } from '../setup/coldStart.js';

// Issue 18's ordering rule in the worker pool: a call a reader waits for
// (demand) starts before every speculative call still waiting for a worker.

/** Worker start-up can take a while on a busy machine. */
const WAIT = COLD_WAIT;

interface Echo {
  index: number;
  /** The worker's own call counter: the order it received the calls in. */
  seq: number;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A pool of one worker running one call at a time, started and ready. */
async function busyPool() {
  const executor = createWorkerExecutor<Echo>({
    worker: () =>
      new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' }),
    poolSize: 1,
    ...COLD_START,
    concurrency: 1,
  });
  closers.push(() => executor.close());
  await expect.poll(() => executor.stats().readyWorkers, WAIT).toBe(1);
  return executor;
}

describe('worker pool: demand before speculation', () => {
  it('starts a demand call next while 10 speculative calls wait', async () => {
    const executor = await busyPool();
    const busy = executor.run(100); // takes the one worker
    const prefetches = Array.from({ length: 10 }, (_, i) =>
      executor.run(i, undefined, undefined, { speculation: new Speculation() }),
    );
    expect(executor.stats()).toMatchObject({ inFlight: 1, queued: 10 });
    const demand = executor.run(50);
    const results = await Promise.all([busy, demand, ...prefetches]);
    const seqOf = new Map(results.map((r) => [r.index, r.seq]));
    expect(seqOf.get(100)).toBe(0);
    expect(seqOf.get(50)).toBe(1); // before all ten prefetches
    // the speculative calls keep their order among themselves
    expect(Array.from({ length: 10 }, (_, i) => seqOf.get(i))).toEqual([
      2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
  });

  it('starts a promoted speculative call before the other speculative ones', async () => {
    const executor = await busyPool();
    const busy = executor.run(100);
    const speculations = Array.from({ length: 10 }, () => new Speculation());
    const prefetches = speculations.map((speculation, i) =>
      executor.run(i, undefined, undefined, { speculation }),
    );
    speculations[7]?.promote(); // a reader now waits for sample 7
    const results = await Promise.all([busy, ...prefetches]);
    const order = [...results].sort((a, b) => a.seq - b.seq).map((r) => r.index);
    expect(order).toEqual([100, 7, 0, 1, 2, 3, 4, 5, 6, 8, 9]);
  });

  it('keeps demand calls in the order called, ahead of speculation called earlier', async () => {
    const executor = await busyPool();
    const busy = executor.run(100);
    const calls = [
      executor.run(0, undefined, undefined, { speculation: new Speculation() }),
      executor.run(60),
      executor.run(1, undefined, undefined, { speculation: new Speculation() }),
      executor.run(61),
      executor.run(62, undefined, undefined, {}), // no speculation: demand
    ];
    const results = await Promise.all([busy, ...calls]);
    const order = [...results].sort((a, b) => a.seq - b.seq).map((r) => r.index);
    expect(order).toEqual([100, 60, 61, 62, 0, 1]);
  });
});

describe('engine over a worker pool: demand before speculation', () => {
  it("starts a reader's load next while the engine's 10 prefetches wait for the one worker", async () => {
    const executor = await busyPool();
    // numWorkers leaves the engine room for all 11: the pool's queue decides the order
    const engine = new CachingEngine<Echo>(
      { length: 100, get: () => Promise.reject(new Error('loads run on the executor')) },
      { executor, cacheSize: 100, prefetchSize: 11, numWorkers: 12 },
    );
    engine.setPlan([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]); // 0 takes the worker, 1..10 wait
    expect(executor.stats()).toMatchObject({ inFlight: 1, queued: 10 });
    const read = await engine.get(50); // a reader's miss
    expect(read.seq).toBe(1); // right after the prefetch that held the worker
    await engine.close();
  });
});

describe('worker pool: speculation bounded by the cores free for it', () => {
  // the abort fixture's loads only end when aborted, so calls stay where they are
  const pendingWorker = () =>
    new Worker(new URL('./fixtures/abort.worker.ts', import.meta.url), { type: 'module' });

  it('runs speculative calls on `speculativeWorkers` workers only; demand calls use every worker', async () => {
    const executor = createWorkerExecutor<never>({
      worker: pendingWorker,
      poolSize: 2,
      ...COLD_START,
      concurrency: 2,
      speculativeWorkers: 1,
    });
    closers.push(() => executor.close());
    await expect.poll(() => executor.stats().readyWorkers, WAIT).toBe(2);
    const controller = new AbortController();
    const calls: Promise<unknown>[] = [];
    const call = (index: number, speculative: boolean) =>
      calls.push(
        executor
          .run(
            index,
            controller.signal,
            undefined,
            speculative ? { speculation: new Speculation() } : {},
          )
          .catch(() => index),
      );
    for (let i = 0; i < 5; i++) call(i, true);
    // one worker × concurrency 2 takes speculation; the other worker stays free
    expect(executor.stats()).toMatchObject({ inFlight: 2, queued: 3 });
    call(50, false);
    call(51, false);
    expect(executor.stats()).toMatchObject({ inFlight: 4, queued: 3 });
    controller.abort();
    await Promise.all(calls);
  });

  it('refuses a speculativeWorkers that is not a positive integer, naming it', () => {
    const worker = () =>
      new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' });
    expect(() => createWorkerExecutor({ worker, speculativeWorkers: 0 })).toThrow(
      /speculativeWorkers must be a positive integer, got 0/,
    );
  });
});
