import { createWorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

interface Reply {
  index: number;
  input: unknown;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("a call's input reaches the worker's loader", () => {
  it('passes run(index, signal, input) on to exposeLoader’s function as a clone', async () => {
    const executor = createWorkerExecutor<Reply>({
      worker: () =>
        new Worker(new URL('./fixtures/input.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
    });
    closers.push(() => executor.close());
    const bytes = new Uint8Array([1, 2, 3]);
    const withInput = await executor.run(5, undefined, { url: '/a.dcm', bytes });
    expect(withInput.index).toBe(5);
    expect(withInput.input).toEqual({ url: '/a.dcm', bytes: new Uint8Array([1, 2, 3]) });
    expect(bytes.byteLength).toBe(3); // cloned, the page's buffer stays usable
    const without = await executor.run(6);
    expect(without).toEqual({ index: 6, input: undefined });
  });

  it('calls a function input for the attempt and sends its result; a throwing one rejects the call', async () => {
    const executor = createWorkerExecutor<Reply>({
      worker: () =>
        new Worker(new URL('./fixtures/input.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
    });
    closers.push(() => executor.close());
    let made = 0;
    const reply = await executor.run(7, undefined, () => ({ attempt: ++made }));
    expect(reply).toEqual({ index: 7, input: { attempt: 1 } });
    const bad = new RangeError('no payload for 8');
    await expect(
      executor.run(8, undefined, () => {
        throw bad;
      }),
    ).rejects.toBe(bad);
    expect(await executor.run(9)).toEqual({ index: 9, input: undefined }); // the pool goes on
  });
});
