import { ManualClock } from '@medfusion/core';
import { createWorkerExecutor, type WorkerCrashEvent, WorkerCrashedError } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('worker start', () => {
  it('a worker that never answers the handshake is replaced after startTimeoutMs, then the pool gives up', async () => {
    const clock = new ManualClock();
    const crashes: WorkerCrashEvent[] = [];
    const executor = createWorkerExecutor<number>({
      worker: () =>
        new Worker(new URL('./fixtures/silent.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
      startTimeoutMs: 2000,
      maxStartFailures: 2,
      clock,
      onCrash: (event) => crashes.push(event),
    });
    closers.push(() => executor.close());
    let outcome: unknown = 'pending';
    executor.run(9).catch((e: unknown) => {
      outcome = e;
    });
    await clock.advance(1999);
    expect(outcome).toBe('pending');
    expect(executor.stats().queued).toBe(1);
    await clock.advance(1);
    expect(crashes.map((c) => c.reason)).toEqual(['did not start within 2000 ms']);
    expect(crashes[0]?.indices).toEqual([]);
    expect(executor.stats().liveWorkers).toBe(1); // the replacement
    await clock.advance(2000);
    expect(outcome).toBeInstanceOf(WorkerCrashedError);
    expect(outcome).toMatchObject({ code: 'WORKER_CRASHED', index: 9 });
    expect((outcome as Error).message).toMatch(
      /failed to start 2 times.*did not start within 2000 ms/,
    );
  });

  it('a factory that throws or returns no Worker fails calls cleanly instead of hanging', async () => {
    for (const worker of [
      () => {
        throw new Error('no worker for you');
      },
      () => 42 as unknown as Worker,
    ]) {
      const executor = createWorkerExecutor<number>({ worker, poolSize: 2 });
      closers.push(() => executor.close());
      const error = await executor.run(1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkerCrashedError);
      expect((error as Error).message).toMatch(/no worker for you|returned 42, not a Worker/);
      expect(executor.stats().liveWorkers).toBe(0);
    }
  });

  it('when replacements keep failing to start, the surviving worker still serves', async () => {
    let made = 0;
    const crashes: WorkerCrashEvent[] = [];
    const executor = createWorkerExecutor<{ index: number }>({
      worker: () =>
        made++ === 0
          ? new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' })
          : new Worker(new URL('./fixtures/broken.worker.ts', import.meta.url), {
              type: 'module',
            }),
      poolSize: 2,
      maxStartFailures: 2,
      onCrash: (event) => crashes.push(event),
    });
    closers.push(() => executor.close());
    // a dead worker is replaced synchronously, so the pool shrinks only once it gives up
    await expect.poll(() => executor.stats().liveWorkers, { timeout: 20_000 }).toBe(1);
    expect(crashes.length).toBeGreaterThanOrEqual(2);
    expect(crashes.every((c) => /uncaught error/.test(c.reason))).toBe(true);
    const results = await Promise.all([1, 2, 3].map((i) => executor.run(i)));
    expect(results.map((r) => r.index)).toEqual([1, 2, 3]);
    expect(executor.stats().liveWorkers).toBe(1);
  });
});
