import { collectTransferables, createWorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

interface Echo {
  index: number;
  data: Float32Array;
  prevByteLength: number;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('zero-copy transfer of returned samples', () => {
  it('moves every ArrayBuffer of a sample: the worker-side buffer is detached after the send', async () => {
    const executor = createWorkerExecutor<Echo>({
      worker: () =>
        new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
    });
    closers.push(() => executor.close());
    const first = await executor.run(3);
    expect(first.prevByteLength).toBe(-1);
    expect(Array.from(first.data)).toEqual(new Array(16).fill(3));
    const second = await executor.run(4);
    // the worker kept a reference to the first sample's buffer: it was moved, not cloned
    expect(second.prevByteLength).toBe(0);
    expect(second.data.byteLength).toBe(64);
  });

  it('copies instead when the worker opts out with { transfer: false } (the control)', async () => {
    const executor = createWorkerExecutor<Echo>({
      worker: () =>
        new Worker(new URL('./fixtures/echo-copy.worker.ts', import.meta.url), { type: 'module' }),
      poolSize: 1,
    });
    closers.push(() => executor.close());
    await executor.run(1);
    const second = await executor.run(2);
    expect(second.prevByteLength).toBe(64);
  });

  it('collectTransferables finds each buffer once, through objects, arrays, maps and views', () => {
    const shared = new ArrayBuffer(32);
    const own = new ArrayBuffer(8);
    const sample = {
      image: new Float32Array(shared, 0, 4),
      mask: new Uint8Array(shared, 16, 16),
      parts: [own, new DataView(new ArrayBuffer(4))],
      meta: new Map([['k', { deep: new Int16Array(2) }]]),
      label: 3,
      name: 'x',
    };
    (sample as Record<string, unknown>).self = sample;
    const found = collectTransferables(sample);
    expect(found).toHaveLength(4);
    expect(found).toContain(shared);
    expect(found).toContain(own);
    const detached = new ArrayBuffer(8);
    structuredClone(detached, { transfer: [detached] });
    expect(collectTransferables({ detached })).toEqual([]);
  });
});
