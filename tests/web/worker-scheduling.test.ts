import { createWorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

/** Worker start-up can take a while on a busy machine. */
const WAIT = { timeout: 20_000 };

interface Echo {
  index: number;
  workerId: string;
  seq: number;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const echoWorker = () =>
  new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' });

describe('dispatch', () => {
  it('is FIFO: a worker receives calls in the order run() was called (the plan order)', async () => {
    const executor = createWorkerExecutor<Echo>({ worker: echoWorker, poolSize: 1 });
    closers.push(() => executor.close());
    const plan = [42, 7, 19, 3, 88, 0, 64, 5, 11, 30, 2, 77];
    const results = await Promise.all(plan.map((i) => executor.run(i)));
    expect(results.map((r) => r.index)).toEqual(plan);
    // seq is the worker's own call counter: it saw the calls in plan order
    expect(results.map((r) => r.seq)).toEqual(plan.map((_, k) => k));
  });

  it('sends each call to the least busy worker', async () => {
    const executor = createWorkerExecutor<Echo>({
      worker: echoWorker,
      poolSize: 2,
      concurrency: 4,
    });
    closers.push(() => executor.close());
    // wait until both workers have started
    await expect.poll(() => executor.stats().readyWorkers, WAIT).toBe(2);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => executor.run(i)));
    const perWorker = new Map<string, number[]>();
    for (const r of results)
      perWorker.set(r.workerId, [...(perWorker.get(r.workerId) ?? []), r.index]);
    expect(perWorker.size).toBe(2);
    // dispatched together, they alternate: 0,2,4,6 on one worker and 1,3,5,7 on the other
    expect([...perWorker.values()].map((v) => v.join()).sort()).toEqual(['0,2,4,6', '1,3,5,7']);
  });

  it('keeps at most `concurrency` calls in one worker and queues the rest', async () => {
    // the abort fixture's loads only end when aborted, so the calls stay where they are
    const executor = createWorkerExecutor<never>({
      worker: () =>
        new Worker(new URL('./fixtures/abort.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
      concurrency: 3,
    });
    closers.push(() => executor.close());
    const controllers = Array.from({ length: 10 }, () => new AbortController());
    const calls = controllers.map((c, i) => executor.run(i, c.signal).catch(() => i));
    await expect.poll(() => executor.stats().inFlight, WAIT).toBe(3);
    expect(executor.stats().queued).toBe(7);
    // finishing one in-flight call lets exactly one queued call in
    controllers[0]?.abort();
    await expect.poll(() => executor.stats().queued, WAIT).toBe(6);
    expect(executor.stats().inFlight).toBe(3);
    for (const c of controllers) c.abort();
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
