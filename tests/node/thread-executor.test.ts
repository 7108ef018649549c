// createThreadExecutor runs loads in real worker threads (the fixture imports the built
// @medfusion/node, as an app's worker module would), and no call waits forever.
import { threadId } from 'node:worker_threads';
import { ClosedError, createThreadExecutor, LoadError, LoadTimeoutError } from '@medfusion/node';
import { describe, expect, it } from 'vitest';

const worker = new URL('./fixtures/loader.worker.mjs', import.meta.url);
// The threads run the built package, without the test runner's `@medfusion/source` condition.
const execArgv: string[] = [];
type Out = { index: number; thread: number; input: unknown; pixels: Float32Array };

describe('createThreadExecutor', () => {
  it('loads in worker threads, off the main thread, spread over the pool', async () => {
    const ex = createThreadExecutor<Out>({ worker, execArgv, poolSize: 2 });
    const out = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ex.run(i, new AbortController().signal, { tag: i })),
    );
    expect(out.map((o) => o.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(out[3]).toMatchObject({ input: { tag: 3 }, pixels: new Float32Array(4).fill(3) });
    const threads = new Set(out.map((o) => o.thread));
    expect(threads.size).toBe(2);
    expect(threads.has(threadId)).toBe(false);
    await ex.close();
  });

  it('rejects on abort, timeout, a loader error, a thread that exits, and close; never hangs', async () => {
    const ex = createThreadExecutor<Out>({ worker, execArgv, poolSize: 1, callTimeoutMs: 1500 });
    const ac = new AbortController();
    const aborted = ex.run(13, ac.signal);
    ac.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(ex.run(13, new AbortController().signal)).rejects.toBeInstanceOf(LoadTimeoutError);
    await expect(ex.run(99, new AbortController().signal)).rejects.toThrow(/no sample 99/);
    await expect(ex.run(66, new AbortController().signal)).rejects.toBeInstanceOf(LoadError);
    expect((await ex.run(5, new AbortController().signal)).index).toBe(5); // a fresh thread
    const pending = expect(ex.run(13, new AbortController().signal)).rejects.toBeInstanceOf(
      ClosedError,
    );
    await ex.close();
    await pending;
    await expect(ex.run(1, new AbortController().signal)).rejects.toBeInstanceOf(ClosedError);
    expect(ex.inFlight).toBe(0);
  });

  it('refuses bad options naming them', () => {
    expect(() => createThreadExecutor({ worker: '' })).toThrow(/worker/);
    expect(() => createThreadExecutor({ worker, poolSize: 0 })).toThrow(/poolSize/);
    expect(() => createThreadExecutor({ worker, callTimeoutMs: -1 })).toThrow(/callTimeoutMs/);
  });
});
