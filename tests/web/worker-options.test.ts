import { createWorkerExecutor, exposeLoader } from '@medfusion/web';
import { describe, expect, it } from 'vitest';

const worker = () =>
  new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' });

describe('bad options are refused with the option and the value named', () => {
  it.each([
    [{ worker: 'x.js' }, TypeError, /worker must be a function.*x\.js/],
    [{ worker, poolSize: 0 }, RangeError, /poolSize.*0/],
    [{ worker, poolSize: 1.5 }, RangeError, /poolSize.*1\.5/],
    [{ worker, poolSize: '2' }, TypeError, /poolSize.*2/],
    [{ worker, callTimeoutMs: -1 }, RangeError, /callTimeoutMs.*-1/],
    [{ worker, callTimeoutMs: Number.NaN }, RangeError, /callTimeoutMs.*NaN/],
    [{ worker, startTimeoutMs: 0 }, RangeError, /startTimeoutMs.*0/],
    [{ worker, concurrency: 0 }, RangeError, /concurrency.*0/],
    [{ worker, heartbeatMs: Number.POSITIVE_INFINITY }, RangeError, /heartbeatMs.*Infinity/],
    [{ worker, maxStartFailures: 0 }, RangeError, /maxStartFailures.*0/],
    [{ worker, liveness: 'ping' }, RangeError, /liveness.*ping/],
  ])('%o', (options, type, message) => {
    expect(() => createWorkerExecutor(options as never)).toThrow(type);
    expect(() => createWorkerExecutor(options as never)).toThrow(message);
  });

  it("refuses numWorkers, the engine's loads in flight, and names poolSize", () => {
    expect(() => createWorkerExecutor({ worker, numWorkers: 2 } as never)).toThrow(TypeError);
    expect(() => createWorkerExecutor({ worker, numWorkers: 2 } as never)).toThrow(
      /numWorkers.*poolSize.*numWorkers: 2/,
    );
  });

  it('a bad index is refused with the index named', async () => {
    const executor = createWorkerExecutor({ worker, poolSize: 1 });
    try {
      await expect(executor.run(-1)).rejects.toThrow(/index.*-1/);
      await expect(executor.run(2.5)).rejects.toBeInstanceOf(RangeError);
    } finally {
      await executor.close();
    }
  });

  it('exposeLoader refuses a non-function loader', () => {
    expect(() => exposeLoader(42 as never)).toThrow(/loader must be a function, got 42/);
  });
});
