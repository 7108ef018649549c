import { DataLoader, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const ds = (n: number) =>
  fromArray(Array.from({ length: n }, (_, id) => ({ id, x: Float32Array.of(id, -id) })));

async function collect<T>(loader: DataLoader<T>) {
  const out: { ids: number[]; shape: number[] }[] = [];
  for await (const b of loader) out.push({ ids: Array.from(b.id!.data), shape: b.x!.shape });
  return out;
}

describe('DataLoader batching', () => {
  it('yields a short last batch by default', async () => {
    const loader = new DataLoader(ds(10), { batchSize: 4 });
    expect(loader.length).toBe(3);
    const batches = await collect(loader);
    expect(batches.map((b) => b.ids)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(batches.map((b) => b.shape)).toEqual([
      [4, 2],
      [4, 2],
      [2, 2],
    ]);
    expect(loader.epoch).toBe(1);
  });

  it('drops the short last batch with dropLast, shuffled or not', async () => {
    const loader = new DataLoader(ds(10), { batchSize: 4, dropLast: true });
    expect(loader.length).toBe(2);
    expect((await collect(loader)).map((b) => b.ids)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    const shuffled = new DataLoader(ds(10), {
      batchSize: 4,
      dropLast: true,
      shuffle: true,
      seed: 3,
    });
    const got = await collect(shuffled);
    expect(got.map((b) => b.ids.length)).toEqual([4, 4]);
    expect(got.flatMap((b) => b.ids)).toEqual(Array.from(shuffled.orderOf(0).subarray(0, 8)));
  });

  it('an exact multiple has no short batch; an empty epoch still advances the epoch', async () => {
    expect((await collect(new DataLoader(ds(8), { batchSize: 4 }))).length).toBe(2);
    const small = new DataLoader(ds(3), { batchSize: 4, dropLast: true });
    expect(small.length).toBe(0);
    expect(await collect(small)).toEqual([]);
    expect(small.epoch).toBe(1);
  });

  it('counts epochs across repeated loops and refuses a second concurrent loop', async () => {
    const loader = new DataLoader(ds(5), { batchSize: 2 });
    for (let e = 0; e < 3; e++) {
      expect(loader.epoch).toBe(e);
      expect((await collect(loader)).flatMap((b) => b.ids)).toEqual([0, 1, 2, 3, 4]);
    }
    const it1 = loader[Symbol.asyncIterator]();
    await it1.next();
    expect(() => loader[Symbol.asyncIterator]()).toThrow(
      expect.objectContaining({ code: 'LOADER_BUSY' }),
    );
    await it1.return?.();
  });

  it('after a break, the next loop continues the same epoch', async () => {
    const loader = new DataLoader(ds(9), { batchSize: 3 });
    for await (const b of loader) {
      expect(Array.from(b.id!.data)).toEqual([0, 1, 2]);
      break;
    }
    expect(loader.state()).toEqual({ seed: 0, epoch: 0, cursor: 1 });
    expect((await collect(loader)).map((b) => b.ids)).toEqual([
      [3, 4, 5],
      [6, 7, 8],
    ]);
    expect(loader.state()).toEqual({ seed: 0, epoch: 1, cursor: 0 });
  });

  it('accepts a custom collate', async () => {
    const loader = new DataLoader(ds(5), {
      batchSize: 2,
      collate: (samples, ctx) => ({ n: samples.length, first: ctx.indices[0] }),
    });
    const out: { n: number; first: number | undefined }[] = [];
    for await (const b of loader) out.push(b);
    expect(out).toEqual([
      { n: 2, first: 0 },
      { n: 2, first: 2 },
      { n: 1, first: 4 },
    ]);
  });
});
