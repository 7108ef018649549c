import { DataLoader, fromArray } from '@medfusion/core';
import { batchToTensors, fieldToTensor, toTfDataset } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';

const samples = Array.from({ length: 10 }, (_, i) => ({
  x: Float32Array.of(i, i + 0.5),
  label: i,
}));

function counting() {
  const reads: number[] = [];
  const base = fromArray(samples);
  return {
    reads,
    ds: {
      length: base.length,
      get: (i: number) => {
        reads.push(i);
        return base.get(i);
      },
    },
  };
}

describe('toTfDataset iterator', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it('does no work until the first next(): a created-and-dropped iterator reads nothing', async () => {
    const { reads, ds } = counting();
    const loader = new DataLoader(ds, { batchSize: 4 });
    const tfds = toTfDataset(loader, { xs: 'x', ys: 'label' });
    const before = tf.memory().numTensors;
    await tfds.iterator(); // what fitDataset does before its epoch loop
    expect(reads).toEqual([]);
    expect(loader.state()).toEqual({ seed: 0, epoch: 0, cursor: 0 });
    expect(tf.memory().numTensors).toBe(before);
  });

  it('serves concurrent next() calls in order with fresh, independent tensors', async () => {
    const loader = new DataLoader(fromArray(samples), { batchSize: 4, batchBuffers: 1 });
    const it = await toTfDataset(loader, { xs: 'x', ys: 'label' }).iterator();
    const before = tf.memory().numTensors;
    const [a, b, c, d] = await Promise.all([it.next(), it.next(), it.next(), it.next()]);
    expect([a!.done, b!.done, c!.done, d!.done]).toEqual([false, false, false, true]);
    const xs = [a!, b!, c!].map((r) => r.value.xs as tf.Tensor);
    const ys = [a!, b!, c!].map((r) => r.value.ys as tf.Tensor);
    // batchBuffers 1 reuses one buffer for every batch: the tensors must hold copies
    expect(await xs[0]!.array()).toEqual([
      [0, 0.5],
      [1, 1.5],
      [2, 2.5],
      [3, 3.5],
    ]);
    expect(await xs[2]!.array()).toEqual([
      [8, 8.5],
      [9, 9.5],
    ]);
    expect(Array.from(await ys[1]!.data())).toEqual([4, 5, 6, 7]);
    expect(ys[1]!.dtype).toBe('int32');
    expect(tf.memory().numTensors).toBe(before + 6);
    tf.dispose([...xs, ...ys]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('a new iterator after an unfinished one closes it and continues the loader', async () => {
    const loader = new DataLoader(fromArray(samples), { batchSize: 4 });
    const tfds = toTfDataset(loader, { xs: 'x', ys: 'label' });
    const first = await tfds.iterator();
    const r = await first.next();
    tf.dispose([r.value.xs as tf.Tensor, r.value.ys as tf.Tensor]);
    const second = await tfds.iterator();
    const rest: number[] = [];
    for (;;) {
      const n = await second.next();
      if (n.done) break;
      rest.push(...Array.from(await (n.value.ys as tf.Tensor).data()));
      tf.dispose([n.value.xs as tf.Tensor, n.value.ys as tf.Tensor]);
    }
    expect(rest).toEqual([4, 5, 6, 7, 8, 9]);
    expect((await first.next()).done).toBe(true);
    expect(loader.epoch).toBe(1);
  });

  it('repeat: true runs on across epochs for fitDataset({ batchesPerEpoch })', async () => {
    const loader = new DataLoader(fromArray(samples), { batchSize: 5, shuffle: true, seed: 1 });
    const it = await toTfDataset(loader, { xs: 'x', ys: 'label', repeat: true }).iterator();
    const labels: number[] = [];
    for (let k = 0; k < 5; k++) {
      const n = await it.next();
      expect(n.done).toBe(false);
      labels.push(...Array.from(await (n.value.ys as tf.Tensor).data()));
      tf.dispose([n.value.xs as tf.Tensor, n.value.ys as tf.Tensor]);
    }
    expect(labels.slice(0, 10)).toEqual(Array.from(loader.orderOf(0)));
    expect(labels.slice(10, 20)).toEqual(Array.from(loader.orderOf(1)));
    expect(labels.slice(20)).toEqual(Array.from(loader.orderOf(2).subarray(0, 5)));
    expect(loader.epoch).toBe(2);
  });

  it('batchToTensors copies every field with a sensible dtype; bad mappings name the field', async () => {
    const loader = new DataLoader(fromArray([{ img: Uint8Array.of(1, 2), label: 3 }]), {
      batchSize: 1,
    });
    for await (const batch of loader) {
      const t = batchToTensors(batch, { img: 'float32' });
      expect(t.img!.dtype).toBe('float32');
      expect(t.img!.shape).toEqual([1, 2]);
      expect(Array.from(await t.img!.data())).toEqual([1, 2]);
      expect(t.label!.dtype).toBe('int32');
      tf.dispose(Object.values(t));
    }
    const bad = await toTfDataset(loader, { xs: 'nope', ys: 'label' }).iterator();
    await expect(bad.next()).rejects.toThrow(/xs names field "nope"/);
    expect((await bad.next()).done).toBe(true); // the failed iterator ended and freed the loader
    expect(() => toTfDataset(loader, { xs: 3 as never, ys: 'label' })).toThrow(
      /xs must be a function/,
    );
    for await (const batch of loader) {
      const y = fieldToTensor(batch.img!, 'float32', [-1, 1]);
      expect(y.shape).toEqual([2, 1]);
      y.dispose();
      expect(() => fieldToTensor(batch.img!, 'float32', [3, -1])).toThrow(
        /shape \[3, -1\] does not hold 2 elements/,
      );
    }
  });
});
