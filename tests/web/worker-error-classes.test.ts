import { AbortError, ClosedError, LoadError, MedFusionError } from '@medfusion/core';
import { createWorkerExecutor, RemoteReadError, WorkerLoadError } from '@medfusion/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Sample = { index: number };
let executor: ReturnType<typeof createWorkerExecutor<Sample>>;

beforeAll(() => {
  executor = createWorkerExecutor<Sample>({
    worker: () =>
      new Worker(new URL('./fixtures/our-errors.worker.ts', import.meta.url), { type: 'module' }),
    poolSize: 1,
  });
});
afterAll(() => executor.close());

function failure(index: number): Promise<unknown> {
  return executor.run(index).then(
    () => {
      throw new Error(`sample ${index} was expected to fail`);
    },
    (e: unknown) => e,
  );
}

describe("our errors thrown by a worker's loader", () => {
  it('a LoadError arrives as LoadError with its code, index, message and cause', async () => {
    const error = await failure(1);
    expect(error).toBeInstanceOf(LoadError);
    expect(error).not.toBeInstanceOf(WorkerLoadError);
    const e = error as LoadError;
    expect(e.name).toBe('LoadError');
    expect(e.code).toBe('LOAD_FAILED');
    expect(e.index).toBe(1);
    expect(e.message).toBe('Loading sample 1 failed: RangeError: disk on fire');
    expect(e.cause).toBeInstanceOf(RangeError);
    expect((e.cause as Error).message).toBe('disk on fire');
  });

  it("an AbortError arrives as AbortError with code ABORTED and the call's index", async () => {
    const error = await failure(2);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toBeInstanceOf(MedFusionError);
    expect(error).toMatchObject({
      name: 'AbortError',
      code: 'ABORTED',
      index: 2,
      message: 'the source stopped',
    });
  });

  it('keeps the fields of the class (RemoteReadError url, status, retryable)', async () => {
    const error = await failure(3);
    expect(error).toBeInstanceOf(RemoteReadError);
    expect(error).toMatchObject({
      code: 'HTTP_ERROR',
      url: 'https://data.example/s-3.tar',
      status: 503,
      retryable: true,
      index: 3,
    });
  });

  it('a ClosedError arrives as ClosedError', async () => {
    const error = await failure(4);
    expect(error).toBeInstanceOf(ClosedError);
    expect(error).toMatchObject({ code: 'CLOSED', message: 'the source is closed', index: 4 });
  });
});
