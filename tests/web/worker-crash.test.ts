import {
  createWorkerExecutor,
  type WorkerCrashEvent,
  WorkerCrashedError,
  type WorkerExecutor,
  type WorkerLiveness,
} from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

/** Worker start-up can take a while on a busy machine. */
const WAIT = { timeout: 20_000 };

interface Pixels {
  index: number;
  pixels: Uint8Array;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const crashWorker = () =>
  new Worker(new URL('./fixtures/crash.worker.ts', import.meta.url), { type: 'module' });

/** Drive one epoch in plan order with `window` loads in flight, as a prefetcher would. */
async function epoch(executor: WorkerExecutor<Pixels>, length: number, window: number) {
  const delivered = new Map<number, number>();
  const failures: unknown[] = [];
  let next = 0;
  async function lane(): Promise<void> {
    while (next < length) {
      const index = next++;
      try {
        const sample = await executor.run(index);
        expect(sample.index).toBe(index);
        expect(sample.pixels[0]).toBe(index % 256);
        delivered.set(index, (delivered.get(index) ?? 0) + 1);
      } catch (error) {
        failures.push(error);
      }
    }
  }
  await Promise.all(Array.from({ length: window }, lane));
  return { delivered, failures };
}

describe('crash recovery', () => {
  for (const liveness of ['lock', 'heartbeat'] as WorkerLiveness[]) {
    it(`an epoch survives workers that close themselves on their 100th call (${liveness})`, async () => {
      const crashes: WorkerCrashEvent[] = [];
      const executor = createWorkerExecutor<Pixels>({
        worker: crashWorker,
        poolSize: 2,
        liveness,
        heartbeatMs: 1000,
        callTimeoutMs: 20_000,
        onCrash: (event) => crashes.push(event),
      });
      closers.push(() => executor.close());
      const { delivered, failures } = await epoch(executor, 300, 8);
      expect(failures).toEqual([]);
      expect(delivered.size).toBe(300);
      for (const count of delivered.values()) expect(count).toBe(1);
      // 300 calls + retries over workers that each die on call 100: at least two deaths
      expect(crashes.length).toBeGreaterThanOrEqual(2);
      expect(crashes.every((c) => c.indices.length >= 1)).toBe(true);
      const stats = executor.stats();
      expect(stats.crashes).toBe(crashes.length);
      expect(stats.retries).toBeGreaterThanOrEqual(crashes.length);
      expect(stats.completed).toBe(300);
      // the pool keeps poolSize alive
      expect(stats.liveWorkers).toBe(2);
    });
  }

  it('a call whose retry dies too fails with WorkerCrashedError naming the index', async () => {
    // sample 13 kills every worker that loads it: the first death sends it once to a
    // fresh worker, the second death fails it
    const executor = createWorkerExecutor<Pixels>({
      worker: () =>
        new Worker(new URL('./fixtures/poison.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 2,
    });
    closers.push(() => executor.close());
    const error = await executor.run(13).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerCrashedError);
    expect((error as WorkerCrashedError).code).toBe('WORKER_CRASHED');
    expect((error as WorkerCrashedError).index).toBe(13);
    expect((error as Error).message).toContain('13');
    // others go on, and the pool is whole again
    const ok = await executor.run(2);
    expect(ok.index).toBe(2);
    expect(executor.stats().crashes).toBe(2);
    await expect.poll(() => executor.stats().liveWorkers, WAIT).toBe(2);
  });

  it('a worker that throws at top level is replaced; after maxStartFailures calls fail cleanly', async () => {
    const crashes: WorkerCrashEvent[] = [];
    const executor = createWorkerExecutor<number>({
      worker: () =>
        new Worker(new URL('./fixtures/broken.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
      maxStartFailures: 3,
      onCrash: (event) => crashes.push(event),
    });
    closers.push(() => executor.close());
    const error = await executor.run(4).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerCrashedError);
    expect((error as WorkerCrashedError).index).toBe(4);
    expect((error as Error).message).toMatch(/failed to start 3 times/);
    expect(crashes).toHaveLength(3);
    expect(crashes[0]?.reason).toMatch(/uncaught error/);
    await expect(executor.run(5)).rejects.toMatchObject({ code: 'WORKER_CRASHED', index: 5 });
  });
});
