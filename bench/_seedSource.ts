// The seed scenario's source (DESIGN.md): every load takes `latencyMs` of timer latency
// (I/O-like, overlappable), is abortable, and returns a 4 KiB image; shared by the benches
// that run the scenario (seed, autotune).
import { type Dataset, fromLoader } from '@medfusion/core';

/** One sample of the seed scenario. */
export interface SeedSample {
  image: Float32Array;
  label: number;
}

/** Measured latency of the loads (timers overshoot on a busy machine); reset between runs. */
export interface LoadLatency {
  sum: number;
  count: number;
}

/** `n` samples of 1024 floats, each load `latencyMs` late; `latency` accumulates what was measured. */
export function seedSource(
  n: number,
  latencyMs: number,
  latency: LoadLatency = { sum: 0, count: 0 },
): Dataset<SeedSample> {
  return fromLoader<SeedSample>(n, (index, signal) => {
    const started = performance.now();
    return new Promise<SeedSample>((resolve, reject) => {
      const timer = setTimeout(() => {
        latency.sum += performance.now() - started;
        latency.count++;
        signal?.removeEventListener('abort', onAbort);
        const image = new Float32Array(1024); // a 32×32 float image: 4 KiB per sample
        image[0] = index;
        resolve({ image, label: index % 2 });
      }, latencyMs);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  });
}
