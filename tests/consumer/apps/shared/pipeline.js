// @ts-check
// One consumer pipeline, bundled by Vite (vite-tfjs) and by webpack 5 (webpack-tfjs):
// a Web Worker loader (createWorkerExecutor) → createCachedDataset with an OPFS
// cacheDir → DataLoader → toTfDataset → a tiny TF.js model, 2 epochs.
import { createCachedDataset, createWorkerExecutor, DataLoader, fromLoader } from '@medfusion/web';
import { toTfDataset } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';

const SAMPLES = 64;

/**
 * Train for 2 epochs and say what happened.
 * @returns {Promise<{ losses: number[], diskHitsPerEpoch: number[], memoryHits: number,
 *   opfsEntries: string[], backend: string, crossOriginIsolated: boolean }>}
 */
export async function train() {
  await tf.setBackend('cpu');
  /** @type {import('@medfusion/web').WorkerExecutor<{ image: Float32Array, label: number }>} */
  const executor = createWorkerExecutor({
    worker: () => new Worker(new URL('./loader.worker.js', import.meta.url), { type: 'module' }),
    poolSize: 2,
  });
  const source = fromLoader(SAMPLES, (index, signal) => executor.run(index, signal));
  const cacheDir = `consumer-app-${Date.now()}`;
  // Memory holds 8 samples of 64, so the second epoch reads the rest from disk.
  const cached = createCachedDataset(source, {
    cacheType: 'both',
    cacheSize: 8,
    prefetchSize: 8,
    numWorkers: 2,
    cacheDir,
  });
  const loader = new DataLoader(cached, { batchSize: 8, shuffle: true, seed: 7 });
  const model = tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [16], units: 8, activation: 'relu' }),
      tf.layers.dense({ units: 2, activation: 'softmax' }),
    ],
  });
  model.compile({ optimizer: tf.train.adam(0.05), loss: 'sparseCategoricalCrossentropy' });
  /** @type {number[]} */
  const losses = [];
  /** @type {number[]} */
  const diskHitsPerEpoch = [];
  let diskHitsBefore = 0;
  try {
    await model.fitDataset(
      toTfDataset(loader, { xs: 'image', ys: 'label', dtypes: { label: 'float32' } }),
      {
        epochs: 2,
        callbacks: {
          onEpochEnd: async (epoch, logs) => {
            losses.push(Number(logs?.loss));
            const { diskHits } = cached.getCacheStats();
            diskHitsPerEpoch.push(diskHits - diskHitsBefore);
            diskHitsBefore = diskHits;
            // Give the disk writes the time a longer epoch gives them: the write-behind
            // delay (100 ms) and the OPFS store's timed group commit (100 ms), whose flush
            // runs on the store's flush thread; an epoch of 64 tiny samples ends sooner.
            if (epoch === 0) await new Promise((resolve) => setTimeout(resolve, 1000));
            await cached.flush(); // the first epoch's samples are on disk before the second
          },
        },
      },
    );
    /** @type {string[]} */
    const opfsEntries = [];
    for await (const name of (await navigator.storage.getDirectory()).keys())
      opfsEntries.push(name);
    return {
      losses,
      diskHitsPerEpoch,
      memoryHits: cached.getCacheStats().memoryHits,
      opfsEntries,
      backend: tf.getBackend(),
      crossOriginIsolated,
    };
  } finally {
    await cached.close();
    await executor.close();
  }
}

/**
 * Run `work` and publish its result (or error) on `document.body.dataset`,
 * where the test reads it.
 * @param {() => Promise<unknown>} work
 */
export function report(work) {
  work().then(
    (result) => {
      document.body.dataset.result = JSON.stringify(result);
    },
    (/** @type {unknown} */ error) => {
      document.body.dataset.error =
        error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error);
    },
  );
}
