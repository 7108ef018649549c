// The consumer of `pnpm bench feed`: takes every batch as a training loop would, by copying its
// float32 (or, with --dtype uint8, uint8) image into one ArrayBuffer of its own (what a tf.tensor() or a GPU upload does), and
// measures the wait in `next()` and the JS heap's rises between batches.
import { type Batch, DataLoader, type Dataset, type Sample } from '@medfusion/core';
import { BATCH, type CpuDelta, type Pass, SAMPLE_BYTES } from './types.js';

/** ImageNet's per-channel statistics, the usual normalisation at 224². */
export const TO_FLOAT32 = {
  scale: 1 / 255,
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
};

/** The same for images already in [0, 1] (the dicom tier's decode workers deliver floats). */
export const TO_FLOAT32_UNIT = { ...TO_FLOAT32, scale: 1 };

/** The consumer's own buffer: one batch of float32 images (or of uint8 images, in its first quarter). */
const taken = new Float32Array(BATCH * SAMPLE_BYTES);
const takenBytes = new Uint8Array(taken.buffer);

interface MemoryInfo {
  usedJSHeapSize: number;
}
/** The JS heap in use (exact with Chromium's --enable-precise-memory-info). */
export function heapUsed(): number {
  return (performance as unknown as { memory: MemoryInfo }).memory.usedJSHeapSize;
}

declare global {
  interface Window {
    /** The driver's per-thread CPU meter: CPU since its last call. */
    feedCpu(): Promise<CpuDelta>;
    /** The driver's Chrome trace (with --trace): start before a warm epoch, stop after. */
    feedTrace(what: 'start' | 'stop'): Promise<void>;
  }
}

/**
 * A loader over `dataset` as a training loop at 224² would make it: batches normalised to
 * float32 by `toFloat32`, or left as they come (uint8 for the GPU to normalise) without it.
 */
export function feedLoader<T extends Sample>(
  dataset: Dataset<T>,
  toFloat32: typeof TO_FLOAT32 | undefined,
  seed = 7,
): DataLoader<T, Batch> {
  return new DataLoader<T, Batch>(dataset, {
    batchSize: BATCH,
    shuffle: true,
    seed,
    ...(toFloat32 ? { toFloat32 } : {}),
  });
}

/** One epoch of `loader`, each batch taken by the consumer. */
export async function consumeEpoch(loader: AsyncIterable<Batch>, trace = false): Promise<Pass> {
  if (trace) await window.feedTrace('start');
  const it = loader[Symbol.asyncIterator]();
  let samples = 0;
  let waitMs = 0;
  let heapRiseBytes = 0;
  await window.feedCpu();
  let heap = heapUsed();
  const t0 = performance.now();
  for (;;) {
    const asked = performance.now();
    const r = await it.next();
    waitMs += performance.now() - asked;
    if (r.done) break;
    const image = r.value.image;
    if (image?.data instanceof Float32Array) taken.set(image.data);
    else if (image?.data instanceof Uint8Array) takenBytes.set(image.data);
    else throw new Error('no float32 or uint8 image field');
    samples += image.shape[0] ?? 0;
    const now = heapUsed();
    if (now > heap) heapRiseBytes += now - heap;
    heap = now;
  }
  const ms = performance.now() - t0;
  const cpu = await window.feedCpu();
  if (trace) await window.feedTrace('stop');
  return { ms, samples, waitMs, heapRiseBytes, cpu };
}

/** Times `run` as a ceiling pass over `samples` samples (no consumer wait by definition). */
export async function ceilingPass(samples: number, run: () => Promise<void>): Promise<Pass> {
  await window.feedCpu();
  const heap0 = heapUsed();
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  const heapRiseBytes = Math.max(0, heapUsed() - heap0);
  return { ms, samples, waitMs: 0, heapRiseBytes, cpu: await window.feedCpu() };
}

/** A seeded permutation of 0..n-1 (the ceilings read in a shuffled order too). */
export function permutation(n: number, seed: number): Uint32Array {
  const out = Uint32Array.from({ length: n }, (_, i) => i);
  let x = seed >>> 0 || 1;
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    const t = out[i] as number;
    out[i] = out[j] as number;
    out[j] = t;
  }
  return out;
}
