import { createWorkerExecutor } from '@medfusion/web';
import { describe, expect, it } from 'vitest';

const worker = () =>
  new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' });

/** Bound on waiting for the workers' start (module load + handshake). */
const WAIT = { timeout: 10_000, interval: 10 };

interface Echo {
  index: number;
  workerId: string;
}

describe("createWorkerExecutor poolSize: 'auto'", () => {
  it('keeps one worker per core left to the training thread, and they all load', async () => {
    const cores = navigator.hardwareConcurrency;
    const expected = cores > 1 ? cores - 1 : 1;
    const executor = createWorkerExecutor<Echo>({ worker, poolSize: 'auto', concurrency: 1 });
    try {
      expect(executor.stats().liveWorkers).toBe(expected);
      await expect.poll(() => executor.stats().readyWorkers, WAIT).toBe(expected);
      // one call per worker at a time: 4 rounds of calls reach every ready worker
      const got = await Promise.all(
        Array.from({ length: 4 * expected }, (_, i) => executor.run(i)),
      );
      expect(got.map((s) => s.index)).toEqual(got.map((_, i) => i));
      expect(new Set(got.map((s) => s.workerId)).size).toBe(expected);
    } finally {
      await executor.close();
    }
  });

  it('refuses another word, naming poolSize and the value', () => {
    const make = () => createWorkerExecutor({ worker, poolSize: 'max' as never });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/poolSize must be a positive integer or 'auto', got "max"/);
  });
});
