import { createWorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

/** Worker start-up can take a while on a busy machine. */
const WAIT = { timeout: 20_000 };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const abortWorker = () =>
  new Worker(new URL('./fixtures/abort.worker.ts', import.meta.url), { type: 'module' });

describe('abort signals cross to the worker', () => {
  it('aborting rejects the call with the reason and aborts the worker-side signal', async () => {
    const channel = new BroadcastChannel('medfusion-worker-abort-test');
    const seen: Array<{ aborted: number; reason: string }> = [];
    channel.onmessage = (event) => seen.push(event.data);
    try {
      const executor = createWorkerExecutor<never>({ worker: abortWorker, poolSize: 1 });
      closers.push(() => executor.close());
      const controller = new AbortController();
      const call = executor.run(11, controller.signal);
      const other = executor.run(12);
      await expect.poll(() => executor.stats().inFlight, WAIT).toBe(2);
      const reason = new DOMException('user scrolled away', 'AbortError');
      controller.abort(reason);
      // rejects promptly, with the caller's own reason, without waiting for the worker
      await expect(call).rejects.toBe(reason);
      expect(executor.stats().inFlight).toBe(1);
      // the worker saw its signal for call 11 abort; call 12 is untouched
      await expect.poll(() => seen, WAIT).toEqual([{ aborted: 11, reason: 'AbortError' }]);
      expect(executor.stats().inFlight).toBe(1);
      other.catch(() => {});
    } finally {
      channel.close();
    }
  });

  it('a call queued behind a busy pool is dropped from the queue on abort', async () => {
    const executor = createWorkerExecutor<never>({
      worker: abortWorker,
      poolSize: 1,
      concurrency: 1,
    });
    closers.push(() => executor.close());
    const first = executor.run(1);
    first.catch(() => {});
    const controller = new AbortController();
    const queued = executor.run(2, controller.signal);
    await expect.poll(() => executor.stats().inFlight, WAIT).toBe(1);
    expect(executor.stats().queued).toBe(1);
    controller.abort();
    await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
    expect(executor.stats().queued).toBe(0);
  });

  it('an already aborted signal rejects at once and never reaches a worker', async () => {
    const executor = createWorkerExecutor<never>({ worker: abortWorker, poolSize: 1 });
    closers.push(() => executor.close());
    const reason = new Error('gone');
    await expect(executor.run(3, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(executor.stats()).toMatchObject({ inFlight: 0, queued: 0 });
  });
});
