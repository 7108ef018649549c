import { DataLoader, fromLoader } from '@medfusion/core';
import { fieldToTensor, toTfDataset } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';

/** Two separable classes in 4 features; loads are async like a real source. */
function syntheticDataset(n: number) {
  return fromLoader(n, async (i) => {
    await Promise.resolve();
    const label = i % 2;
    const tabular = new Float32Array(4);
    for (let j = 0; j < 4; j++) tabular[j] = (label ? 0.6 : -0.6) + Math.sin(i * 7.3 + j) * 0.5;
    return { tabular, label };
  });
}

describe('toTfDataset + model.fitDataset (TF.js 4.22, cpu backend, real Chromium)', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
    await tf.ready();
  });

  it('trains for 2 epochs: loss goes down and no tensor leaks between epochs', async () => {
    const loader = new DataLoader(syntheticDataset(256), { batchSize: 32, shuffle: true, seed: 3 });
    const ds = toTfDataset(loader, {
      xs: 'tabular',
      ys: 'label',
      dtypes: { label: 'float32' },
      shapes: { label: [-1, 1] },
    });
    expect(ds.size).toBe(8);
    const model = tf.sequential({
      layers: [
        tf.layers.dense({ inputShape: [4], units: 8, activation: 'relu' }),
        tf.layers.dense({ units: 1, activation: 'sigmoid' }),
      ],
    });
    model.compile({ optimizer: tf.train.adam(0.05), loss: 'binaryCrossentropy' });
    const tensorsAtEpochEnd: number[] = [];
    const batchesPerEpoch: number[] = [];
    let batches = 0;
    const history = await model.fitDataset(ds, {
      epochs: 2,
      verbose: 0,
      callbacks: {
        onBatchEnd: async () => {
          batches++;
        },
        onEpochEnd: async () => {
          tensorsAtEpochEnd.push(tf.memory().numTensors);
          batchesPerEpoch.push(batches);
          batches = 0;
        },
      },
    });
    const loss = history.history.loss as number[];
    expect(loss).toHaveLength(2);
    expect(loss[1]!).toBeLessThan(loss[0]!);
    expect(batchesPerEpoch).toEqual([8, 8]);
    expect(tensorsAtEpochEnd[1]).toBe(tensorsAtEpochEnd[0]);
    expect(loader.epoch).toBe(2);
    // a third epoch through a fresh fit keeps the count flat too
    await model.fitDataset(ds, { epochs: 1, verbose: 0 });
    expect(tf.memory().numTensors).toBe(tensorsAtEpochEnd[0]);
    model.dispose();
  });

  it('trains a two-input model through a { name: field } mapping', async () => {
    const n = 64;
    const data = fromLoader(n, (i) => ({
      a: Float32Array.of(i % 2),
      b: Float32Array.of(1 - (i % 2)),
      label: i % 2,
    }));
    const loader = new DataLoader(data, { batchSize: 16 });
    const ia = tf.input({ shape: [1], name: 'ina' });
    const ib = tf.input({ shape: [1], name: 'inb' });
    const merged = tf.layers.concatenate().apply([ia, ib]) as tf.SymbolicTensor;
    const out = tf.layers
      .dense({ units: 1, activation: 'sigmoid' })
      .apply(merged) as tf.SymbolicTensor;
    const model = tf.model({ inputs: [ia, ib], outputs: out });
    model.compile({ optimizer: tf.train.adam(0.1), loss: 'binaryCrossentropy' });
    const h = await model.fitDataset(
      toTfDataset(loader, {
        xs: { ina: 'a', inb: 'b' },
        ys: (batch) => tf.tidy(() => fieldToTensor(batch.label!, 'float32').reshape([-1, 1])),
      }),
      { epochs: 3, verbose: 0 },
    );
    const loss = h.history.loss as number[];
    expect(loss[2]!).toBeLessThan(loss[0]!);
    model.dispose();
  });
  it('trains the README shape: image + tabular inputs, softmax over classes, sparse labels', async () => {
    const classes = 3;
    const data = fromLoader(96, async (i) => {
      await Promise.resolve();
      const label = i % classes;
      const image = new Float32Array(16).fill(0.1);
      image[label * 4] = 1; // the class shows in the image
      return { image, tabular: Float32Array.of(label / classes, 1 - label / classes), label };
    });
    const loader = new DataLoader(data, { batchSize: 16, shuffle: true, seed: 42 });
    const image = tf.input({ shape: [16], name: 'image' });
    const tabular = tf.input({ shape: [2], name: 'tabular' });
    const joined = tf.layers
      .concatenate()
      .apply([
        tf.layers.dense({ units: 8, activation: 'relu' }).apply(image) as tf.SymbolicTensor,
        tabular,
      ]) as tf.SymbolicTensor;
    const out = tf.layers
      .dense({ units: classes, activation: 'softmax' })
      .apply(joined) as tf.SymbolicTensor;
    const model = tf.model({ inputs: [image, tabular], outputs: out });
    model.compile({
      optimizer: tf.train.adam(0.05),
      loss: 'sparseCategoricalCrossentropy',
      metrics: ['accuracy'],
    });
    const h = await model.fitDataset(
      toTfDataset(loader, {
        xs: { image: 'image', tabular: 'tabular' },
        ys: 'label',
        dtypes: { label: 'float32' },
      }),
      { epochs: 4, verbose: 0 },
    );
    const loss = h.history.loss as number[];
    const acc = h.history.acc as number[];
    expect(loss[3]!).toBeLessThan(loss[0]!);
    expect(acc[3]!).toBeGreaterThan(1 / classes);
    expect(loader.state()).toEqual({ seed: 42, epoch: 4, cursor: 0 });
    model.dispose();
  });
});
