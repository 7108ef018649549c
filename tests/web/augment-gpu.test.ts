import {
  AugmentRng,
  compose,
  cutout,
  flipH,
  flipV,
  gamma,
  gaussianJitter,
  gaussianNoise,
  intensity,
  normalize,
  oneOf,
  randomResizedCrop,
  rotate,
  rotate90,
  runTransform,
  type Transform,
} from '@medfusion/core';
import { augmentBatchTf } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';

/** The stated tolerance of the GPU path against the CPU path (values in [0, 1]). */
const TOLERANCE = 1e-4;

beforeAll(async () => {
  await tf.setBackend('cpu');
  await tf.ready();
});

function batch(n: number, h: number, w: number, c: number): Float32Array {
  return Float32Array.from({ length: n * h * w * c }, (_, i) => ((i * 7919) % 1000) / 1000);
}

/** The CPU path, sample by sample, from the same (seed, epoch, index) streams. */
function cpu(
  t: Transform,
  data: Float32Array,
  shape: number[],
  seed: number,
  epoch: number,
  indices: number[],
) {
  const [n, h, w, c] = shape as [number, number, number, number];
  const size = h * w * c;
  const rng = new AugmentRng();
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    rng.reset(seed, epoch, indices[i]!);
    const r = runTransform(
      t,
      { data: data.slice(i * size, (i + 1) * size), shape: [h, w, c] },
      rng,
    );
    out.push(r.data);
  }
  return out;
}

function compare(t: Transform, shape: [number, number, number, number], seed = 3, epoch = 1) {
  const data = batch(...shape);
  const indices = Array.from({ length: shape[0] }, (_, i) => 100 + i * 3);
  const expected = cpu(t, data, shape, seed, epoch, indices);
  const input = tf.tensor4d(data, shape);
  const output = augmentBatchTf(input, t, { seed, epoch, indices });
  const got = output.dataSync() as Float32Array;
  const per = got.length / shape[0];
  let maxDiff = 0;
  let changed = 0;
  for (let i = 0; i < shape[0]; i++) {
    const e = expected[i]!;
    expect(e.length).toBe(per);
    for (let j = 0; j < per; j++) maxDiff = Math.max(maxDiff, Math.abs(got[i * per + j]! - e[j]!));
    if (e.some((v, j) => v !== data[i * per + j])) changed++;
  }
  tf.dispose([input, output]);
  return { maxDiff, changed, outShape: output.shape };
}

describe('GPU path (TF.js ops on the batch) matches the CPU path given the same draws', () => {
  it.each([
    [
      'flips + quarter turns + intensity + gamma',
      compose([flipH(), flipV(), rotate90(), intensity(), gamma()]),
      [16, 8, 8, 3],
    ],
    ['rotate, bilinear with fill', rotate({ degrees: 25, p: 0.7, fill: 0.5 }), [12, 9, 7, 1]],
    [
      'randomResizedCrop to a fixed size',
      randomResizedCrop({ size: [6, 5], scale: [0.2, 1], p: 0.8 }),
      [12, 10, 8, 2],
    ],
    ['cutout, two patches', cutout({ size: [3, 2], count: 2, fill: -1 }), [12, 8, 8, 1]],
    [
      'normalize per channel',
      normalize({ mean: [0.5, 0.4, 0.3], std: [0.2, 0.25, 0.5] }),
      [4, 4, 4, 3],
    ],
    [
      'oneOf',
      oneOf([flipH({ p: 1 }), rotate90({ p: 1, turns: [2] }), intensity({ p: 1 })], { p: 0.8 }),
      [16, 6, 6, 1],
    ],
    [
      'the standard recipe without noise',
      compose([flipH(), rotate90(), intensity()]),
      [32, 16, 16, 1],
    ],
  ] as const)('%s', (_name, t, shape) => {
    const { maxDiff, changed } = compare(t as Transform, [...shape]);
    expect(maxDiff).toBeLessThan(TOLERANCE);
    expect(changed).toBeGreaterThan(0); // the draws did something
  });

  it('the output has the transform’s shape (crop to a fixed size)', () => {
    const { outShape } = compare(randomResizedCrop({ size: 4 }), [3, 9, 9, 1]);
    expect(outShape).toEqual([3, 4, 4, 1]);
  });

  it('gaussianNoise: same samples touched, the stated distribution', () => {
    const shape: [number, number, number, number] = [16, 32, 32, 1];
    const zeros = new Float32Array(16 * 32 * 32);
    const t = gaussianNoise({ std: 0.1, p: 0.5 });
    const indices = Array.from({ length: 16 }, (_, i) => i);
    const expected = cpu(t, zeros, shape, 8, 0, indices);
    const out = augmentBatchTf(tf.tensor4d(zeros, shape), t, { seed: 8, epoch: 0, indices });
    const got = out.dataSync();
    out.dispose();
    let noisy = 0;
    let s2 = 0;
    for (let i = 0; i < 16; i++) {
      const gpuTouched = got.subarray(i * 1024, (i + 1) * 1024).some((v) => v !== 0);
      const cpuTouched = expected[i]!.some((v) => v !== 0);
      expect(gpuTouched).toBe(cpuTouched);
      if (gpuTouched) {
        noisy++;
        for (const v of got.subarray(i * 1024, (i + 1) * 1024)) s2 += v * v;
      }
    }
    expect(noisy).toBeGreaterThan(0);
    expect(Math.sqrt(s2 / (noisy * 1024))).toBeCloseTo(0.1, 2);
  });

  it.each([
    ['gaussianNoise', gaussianNoise({ std: 0.1, p: 0.5 }), [16, 8, 8, 3]],
    [
      'the standard recipe with noise',
      compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.03 })]),
      [32, 16, 16, 1],
    ],
  ] as const)(
    '%s gives the CPU path’s noise values, per sample (within the tolerance)',
    (_n, t, shape) => {
      const { maxDiff, changed } = compare(t as Transform, [...shape]);
      expect(maxDiff).toBeLessThan(TOLERANCE);
      expect(changed).toBeGreaterThan(0);
    },
  );

  it.each([
    [
      'flips and half turns of non-square images',
      compose([flipV(), rotate90({ turns: [2] }), flipH()]),
      [12, 6, 4, 2],
      0,
    ],
    ['quarter turns alone', rotate90({ p: 0.8 }), [12, 5, 5, 3], 0],
    [
      'two runs of geometric steps around intensity',
      compose([rotate90(), flipH(), intensity(), flipV(), rotate90()]),
      [16, 7, 7, 1],
      TOLERANCE,
    ],
  ] as const)(
    '%s: the CPU path (pure permutations bitwise; one gather per run of flips and turns)',
    (_n, t, shape, tolerance) => {
      const { maxDiff, changed } = compare(t as Transform, [...shape]);
      expect(maxDiff).toBeLessThanOrEqual(tolerance);
      expect(changed).toBeGreaterThan(0);
    },
  );

  it('a sample’s noise does not depend on the other samples of its batch', () => {
    const t = gaussianNoise({ std: 0.1, p: 1 });
    const zeros = tf.zeros([4, 4, 4, 1]) as tf.Tensor4D;
    const a = augmentBatchTf(zeros, t, { seed: 5, epoch: 2, indices: [10, 11, 12, 13] });
    const b = augmentBatchTf(zeros, t, { seed: 5, epoch: 2, indices: [99, 98, 12, 97] });
    expect(Array.from(a.dataSync().subarray(32, 48))).toEqual(
      Array.from(b.dataSync().subarray(32, 48)),
    );
    tf.dispose([zeros, a, b]);
  });

  it('refuses what it cannot do on the GPU, naming it', () => {
    const x = tf.zeros([2, 4, 6, 1]) as tf.Tensor4D;
    const opts = { seed: 0, epoch: 0, indices: [0, 1] };
    expect(() => augmentBatchTf(x, gaussianJitter({ std: 1 }), opts)).toThrow(
      /cannot run 'gaussianJitter'/,
    );
    expect(() => augmentBatchTf(x, rotate90({ p: 1, turns: [1] }), opts)).toThrow(/square images/);
    expect(() => augmentBatchTf(x, flipH(), { ...opts, indices: [0] })).toThrow(
      /one dataset index per sample \(2\)/,
    );
    x.dispose();
  });
});
