import { LoadTimeoutError, ManualClock } from '@medfusion/core';
import { createWorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

/** Worker start-up can take a while on a busy machine. */
const WAIT = { timeout: 20_000 };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const hangWorker = () =>
  new Worker(new URL('./fixtures/hang.worker.ts', import.meta.url), { type: 'module' });

/** Let real worker round trips happen (the ManualClock only drives our timers). */
const realTick = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

describe('hang protection', () => {
  it('a load that never settles rejects with LoadTimeoutError at callTimeoutMs, and the run goes on', async () => {
    const clock = new ManualClock();
    const executor = createWorkerExecutor<{ index: number }>({
      worker: hangWorker,
      poolSize: 2,
      callTimeoutMs: 5000,
      clock,
    });
    closers.push(() => executor.close());
    let outcome: unknown = 'pending';
    executor.run(7).then(
      (value) => {
        outcome = value;
      },
      (error: unknown) => {
        outcome = error;
      },
    );
    await expect.poll(() => executor.stats().inFlight, WAIT).toBe(1);
    await clock.advance(4999);
    await realTick();
    expect(outcome).toBe('pending');
    await clock.advance(1);
    expect(outcome).toBeInstanceOf(LoadTimeoutError);
    expect(outcome).toMatchObject({ code: 'LOAD_TIMEOUT', index: 7, timeoutMs: 5000 });
    expect((outcome as Error).message).toContain('7');
    // the worker is alive (it answers the probe), so nothing is replaced and later loads work
    const results = await Promise.all([1, 2, 3, 8, 9].map((i) => executor.run(i)));
    expect(results.map((r) => r.index)).toEqual([1, 2, 3, 8, 9]);
    const stats = executor.stats();
    expect(stats.timeouts).toBe(1);
    expect(stats.crashes).toBe(0);
    expect(stats.inFlight).toBe(0);
  });

  it('a worker wedged in a busy loop is timed out, found unresponsive and replaced', async () => {
    const clock = new ManualClock();
    const executor = createWorkerExecutor<{ index: number }>({
      worker: hangWorker,
      poolSize: 1,
      callTimeoutMs: 5000,
      heartbeatMs: 1000,
      clock,
    });
    closers.push(() => executor.close());
    const wedged = executor.run(999).catch((e: unknown) => e);
    await expect.poll(() => executor.stats().inFlight, WAIT).toBe(1);
    await realTick();
    await clock.advance(5000);
    expect(await wedged).toMatchObject({ code: 'LOAD_TIMEOUT', index: 999 });
    // the probe ping gets no answer within heartbeatMs: the worker is declared dead
    await clock.advance(1000);
    expect(executor.stats().crashes).toBe(1);
    const next = await executor.run(1);
    expect(next.index).toBe(1);
    expect(executor.stats().liveWorkers).toBe(1);
  });

  it('every call of an epoch settles: hung ones time out, the others deliver', async () => {
    const clock = new ManualClock();
    const executor = createWorkerExecutor<{ index: number }>({
      worker: hangWorker,
      poolSize: 2,
      callTimeoutMs: 5000,
      clock,
    });
    closers.push(() => executor.close());
    const all = Promise.allSettled(Array.from({ length: 100 }, (_, i) => executor.run(i)));
    // the 98 good loads finish while the clock stands still; then the bound passes
    await expect.poll(() => executor.stats().completed, WAIT).toBe(98);
    expect(executor.stats().inFlight).toBe(2);
    await clock.advance(5000);
    const settled = await all;
    const timedOut = settled.flatMap((s, i) => (s.status === 'rejected' ? [i] : []));
    expect(timedOut).toEqual([7, 57]);
    for (const i of timedOut) {
      expect((settled[i] as PromiseRejectedResult).reason).toBeInstanceOf(LoadTimeoutError);
    }
    expect(executor.stats()).toMatchObject({ inFlight: 0, queued: 0, timeouts: 2 });
  });
});
