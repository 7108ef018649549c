import { MedFusionError } from '@medfusion/core';
import { createWorkerExecutor, WorkerLoadError } from '@medfusion/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Sample = { index: number };
let executor: ReturnType<typeof createWorkerExecutor<Sample>>;

beforeAll(() => {
  executor = createWorkerExecutor<Sample>({
    worker: () =>
      new Worker(new URL('./fixtures/error.worker.ts', import.meta.url), { type: 'module' }),
    poolSize: 1,
  });
});
afterAll(() => executor.close());

async function failure(index: number): Promise<WorkerLoadError> {
  const error = await executor.run(index).then(
    () => {
      throw new Error(`sample ${index} was expected to fail`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerLoadError);
  return error as WorkerLoadError;
}

describe("errors thrown by the worker's loader", () => {
  it('keep their name, message, stack and own code, and carry the index', async () => {
    const error = await failure(5);
    expect(error).toBeInstanceOf(MedFusionError);
    expect(error.name).toBe('BadPngError');
    expect(error.message).toBe('bad PNG signature in image 5');
    expect(error.code).toBe('BAD_PNG');
    expect(error.index).toBe(5);
    // the stack is the worker's: it names the throwing function and the fixture file
    expect(error.stack).toContain('decodePng');
    expect(error.stack).toContain('error.worker');
    expect(error.remoteStack).toContain('decodePng');
  });

  it('get code LOAD_FAILED when the loader set none', async () => {
    const error = await failure(6);
    expect(error.name).toBe('TypeError');
    expect(error.message).toBe('pixels is not iterable');
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.index).toBe(6);
  });

  it('thrown non-errors become errors with their text as message', async () => {
    const error = await failure(7);
    expect(error.name).toBe('Error');
    expect(error.message).toBe('plain string failure');
    expect(error.index).toBe(7);
  });

  it('a sample that cannot be sent (holds a function) fails its call, not the pool', async () => {
    const error = await failure(8);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.index).toBe(8);
    const ok = await executor.run(9);
    expect(ok).toEqual({ index: 9 });
    expect(executor.stats().crashes).toBe(0);
  });
});
