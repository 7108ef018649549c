// Page side of `pnpm bench augment`: one epoch per measurement through
// DataLoader (cached samples, batch 32, shuffled) → upload as a tf.Tensor4D →
// a reduction awaited (so GPU work is counted), on four paths.
import {
  CachedDataset,
  type CollateContext,
  createCollate,
  DataLoader,
  type DataLoaderOptions,
  fromArray,
} from '@medfusion/core';
import { createAugmentWorkerPool } from '@medfusion/web';
import { augmentBatchTf } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { type BenchSample, imageRecipe, sampleRecipe } from './recipe.js';

/** What the Node side asks for. */
export interface AugmentBenchConfig {
  sizes: { label: string; side: number; channels: number; samples: number }[];
  rounds: number;
  batchSize: number;
  workers: number;
  backend: string;
  /** What consumes each batch: `upload` (tensor + an awaited reduction) or `train` (a small CNN's trainOnBatch). */
  consumer: 'upload' | 'train';
  /** Measure CPU time per thread class (the Node side exposes `benchCpuMark`). */
  cpu: boolean;
}

/** One measurement. */
export interface Measurement {
  size: string;
  path: Path;
  round: number;
  samplesPerSec: number;
  /** CPU ms per sample by thread class (page main thread, workers, GPU process, other), with `--cpu`. */
  cpuMsPerSample?: Record<string, number>;
}

/** With `--cpu`, the Node side exposes this: CPU ms used so far by the browser's threads, by class. */
type CpuMark = () => Promise<Record<string, number>>;

export type Path = 'none' | 'in-thread' | 'workers' | 'gpu';
const PATHS: Path[] = ['none', 'in-thread', 'workers', 'gpu'];

function status(text: string): void {
  const el = document.getElementById('status');
  if (el) el.textContent = text;
}

function samplesOf(side: number, channels: number, n: number): BenchSample[] {
  const size = side * side * channels;
  return Array.from({ length: n }, (_, i) => {
    const image = new Float32Array(size);
    for (let j = 0; j < size; j++) image[j] = ((i * 131 + j * 7) % 255) / 255;
    return { image, imageShape: [side, side, channels], label: i % 2 };
  });
}

/** A small CNN (conv 8×3×3 stride 2 → global average pool → dense), the `train` consumer. */
function smallModel(side: number, channels: number): tf.LayersModel {
  const model = tf.sequential({
    layers: [
      tf.layers.conv2d({
        inputShape: [side, side, channels],
        filters: 8,
        kernelSize: 3,
        strides: 2,
        activation: 'relu',
      }),
      tf.layers.globalAveragePooling2d({}),
      tf.layers.dense({ units: 1, activation: 'sigmoid' }),
    ],
  });
  model.compile({ optimizer: 'adam', loss: 'binaryCrossentropy' });
  return model;
}

async function epoch(
  model: tf.LayersModel | undefined,
  cached: CachedDataset<BenchSample>,
  opts: DataLoaderOptions<BenchSample, ReturnType<ReturnType<typeof createCollate>>>,
  side: number,
  channels: number,
  gpu: boolean,
  epochNo: number,
  batchSize: number,
): Promise<number> {
  const collate = createCollate();
  let indices: ArrayLike<number> = [];
  const loader = new DataLoader(cached, {
    ...opts,
    batchSize,
    shuffle: true,
    seed: 7,
    resumeFrom: { seed: 7, epoch: epochNo, cursor: 0 },
    collate: (s: readonly BenchSample[], c: CollateContext) => {
      indices = Uint32Array.from(c.indices);
      return collate(s, c);
    },
  });
  const recipe = imageRecipe();
  const t0 = performance.now();
  let n = 0;
  const pending: Promise<unknown>[] = [];
  for await (const batch of loader) {
    const b = batch.image!.shape[0]!;
    n += b;
    const images = tf.tensor4d(batch.image!.data as Float32Array, [b, side, side, channels]);
    const out = gpu ? augmentBatchTf(images, recipe, { seed: 7, epoch: epochNo, indices }) : images;
    if (model) {
      const labels = tf.tensor2d(Float32Array.from(batch.label!.data), [b, 1]);
      await model.trainOnBatch(out, labels);
      tf.dispose([images, out, labels]);
      continue;
    }
    const sum = tf.sum(out);
    pending.push(sum.data().then(() => tf.dispose([images, out, sum])));
    if (pending.length > 2) await pending.shift();
  }
  await Promise.all(pending);
  return (n / (performance.now() - t0)) * 1000;
}

async function runAugmentBench(cfg: AugmentBenchConfig): Promise<Measurement[]> {
  await tf.setBackend(cfg.backend);
  await tf.ready();
  const out: Measurement[] = [];
  const pool = createAugmentWorkerPool<BenchSample>({
    worker: () => new Worker(new URL('./augment.worker.ts', import.meta.url), { type: 'module' }),
    poolSize: cfg.workers,
  });
  try {
    for (const size of cfg.sizes) {
      const samples = samplesOf(size.side, size.channels, size.samples);
      const cached = new CachedDataset(fromArray(samples), { cacheSize: samples.length });
      for (let i = 0; i < samples.length; i++) await cached.get(i); // fill the cache
      const model = cfg.consumer === 'train' ? smallModel(size.side, size.channels) : undefined;
      const opts: Record<Path, DataLoaderOptions<BenchSample, never>> = {
        none: {},
        'in-thread': { augment: sampleRecipe() },
        workers: { augment: pool },
        gpu: {},
      };
      const run = (path: Path, epochNo: number) =>
        epoch(
          model,
          cached,
          opts[path] as never,
          size.side,
          size.channels,
          path === 'gpu',
          epochNo,
          cfg.batchSize,
        );
      // warm-up: one epoch per path (JIT, worker start, tf kernels)
      for (const path of PATHS) await run(path, 0);
      for (let r = 0; r < cfg.rounds; r++) {
        // alternate the order: A B C D, B C D A, ...
        for (let k = 0; k < PATHS.length; k++) {
          const path = PATHS[(r + k) % PATHS.length]!;
          status(`${size.label} round ${r + 1}/${cfg.rounds}: ${path}`);
          const mark = (window as unknown as { benchCpuMark?: CpuMark }).benchCpuMark;
          const before = await mark?.();
          const sps = await run(path, r + 1);
          const m: Measurement = { size: size.label, path, round: r, samplesPerSec: sps };
          const after = await mark?.();
          if (before && after) {
            m.cpuMsPerSample = {};
            for (const k of Object.keys(after)) {
              m.cpuMsPerSample[k] = (after[k]! - before[k]!) / size.samples;
            }
          }
          out.push(m);
        }
      }
      model?.dispose();
    }
  } finally {
    await pool.close();
  }
  status('done');
  return out;
}

(window as unknown as { runAugmentBench: typeof runAugmentBench }).runAugmentBench =
  runAugmentBench;
status('ready');
