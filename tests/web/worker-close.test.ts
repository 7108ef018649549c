import { ClosedError } from '@medfusion/core';
import { createWorkerExecutor } from '@medfusion/web';
import { describe, expect, it } from 'vitest';

/** Worker start-up can take a while on a busy machine. */
const WAIT = { timeout: 20_000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('close()', () => {
  it('terminates every worker and rejects every pending call with ClosedError', async () => {
    const channel = new BroadcastChannel('medfusion-worker-alive-test');
    const heard = new Set<string>();
    channel.onmessage = (event) => heard.add(event.data as string);
    try {
      const executor = createWorkerExecutor<{ index: number }>({
        worker: () =>
          new Worker(new URL('./fixtures/alive.worker.ts', import.meta.url), { type: 'module' }),
        poolSize: 2,
        concurrency: 1,
      });
      // both workers announce themselves while they live
      await expect.poll(() => heard.size, WAIT).toBe(2);
      expect(executor.stats().liveWorkers).toBe(2);
      // index 0 never settles: one in flight per worker, the rest queued
      const pending = [0, 0, 0, 0].map((i) => executor.run(i));
      await expect.poll(() => executor.stats().inFlight, WAIT).toBe(2);
      expect(executor.stats().queued).toBe(2);

      await executor.close();
      const results = await Promise.allSettled(pending);
      for (const r of results) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ClosedError);
        expect((r as PromiseRejectedResult).reason.code).toBe('CLOSED');
      }
      expect(executor.stats()).toMatchObject({ liveWorkers: 0, inFlight: 0, queued: 0 });
      await expect(executor.run(1)).rejects.toBeInstanceOf(ClosedError);

      // no worker is left: none announces itself any more. A message a worker posted just before
      // it was terminated may still arrive (late, on a loaded machine: seen in Firefox), so wait for
      // a quiet 300 ms; a live worker announces every 10 ms and never leaves one.
      await expect
        .poll(
          async () => {
            heard.clear();
            await sleep(300);
            return [...heard];
          },
          { timeout: 10_000, interval: 0 },
        )
        .toEqual([]);
      await executor.close(); // idempotent
    } finally {
      channel.close();
    }
  });
});
