// The unrolled normalisation kernels of the default collate (packages/core/src/loader/
// normaliseKernels.ts) against the plain per-element loop they replace, property-style:
// every channel count 1-7 (1, 3, 4 have their own kernels, the rest share a
// channel-by-channel one), per-channel or shared mean/std, odd sample sizes, input
// element types, batches of several samples. Equality is exact: both compute in double
// precision and round once to float32.
import { createCollate } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type Ctor =
  | Uint8ArrayConstructor
  | Uint16ArrayConstructor
  | Int16ArrayConstructor
  | Float32ArrayConstructor;
const CTORS: readonly Ctor[] = [Uint8Array, Uint16Array, Int16Array, Float32Array];

/** The plain reference: out = (x * scale - mean[c]) / std[c], c = j % channels, to float32. */
function reference(
  samples: readonly ArrayLike<number>[],
  scale: number,
  mean: readonly number[],
  std: readonly number[],
): Float32Array {
  const channels = Math.max(mean.length, std.length);
  const n = samples[0]!.length;
  const out = new Float32Array(samples.length * n);
  for (let i = 0; i < samples.length; i++) {
    for (let j = 0; j < n; j++) {
      const c = j % channels;
      const m = mean.length === 1 ? mean[0]! : mean[c]!;
      const s = std.length === 1 ? std[0]! : std[c]!;
      out[i * n + j] = samples[i]![j]! * (scale / s) + -m / s;
    }
  }
  return out;
}

const caseArb = fc
  .record({
    channels: fc.integer({ min: 1, max: 7 }),
    pixels: fc.integer({ min: 1, max: 37 }),
    batch: fc.integer({ min: 1, max: 5 }),
    ctor: fc.constantFrom(...CTORS),
    scale: fc.constantFrom(1, 1 / 255, 1 / 65535, 0.37),
    perChannelMean: fc.boolean(),
    perChannelStd: fc.boolean(),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  })
  .map((c) => {
    let x = c.seed;
    const next = () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x / 2 ** 31;
    };
    const n = c.channels * c.pixels;
    const max = c.ctor === Uint8Array ? 255 : c.ctor === Float32Array ? 1000 : 30000;
    const samples = Array.from(
      { length: c.batch },
      () => new c.ctor(Array.from({ length: n }, () => Math.round(next() * max))),
    );
    const mean = Array.from({ length: c.perChannelMean ? c.channels : 1 }, () => next() - 0.2);
    const std = Array.from({ length: c.perChannelStd ? c.channels : 1 }, () => 0.05 + next());
    return { ...c, n, samples, mean, std };
  });

describe('collate normalisation kernels', () => {
  it('equal the plain per-element loop for any channel count, mean/std and odd sizes', () => {
    fc.assert(
      fc.property(caseArb, (k) => {
        const collate = createCollate({
          toFloat32: { scale: k.scale, mean: k.mean, std: k.std },
          batchBuffers: 0,
        });
        const batch = collate(
          k.samples.map((image, i) => ({ image, label: i })),
          { indices: k.samples.map((_, i) => i) },
        );
        const got = batch.image!.data;
        expect(got).toBeInstanceOf(Float32Array);
        expect(batch.image!.shape).toEqual([k.batch, k.n]);
        expect(Array.from(got)).toEqual(Array.from(reference(k.samples, k.scale, k.mean, k.std)));
      }),
      { numRuns: 400 },
    );
  });

  it('equal it at 224x224x3 and at an odd 3-channel size, in a pooled buffer', () => {
    // 224x224x3 and an odd 3-channel size whose length is not a multiple of 4 or 8.
    for (const n of [224 * 224 * 3, 3 * 13]) {
      const collate = createCollate({
        toFloat32: { scale: 1 / 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] },
      });
      const a = Uint8Array.from({ length: n }, (_, j) => (j * 31) & 255);
      const b = Uint8Array.from({ length: n }, (_, j) => (j * 17 + 5) & 255);
      const got = collate([{ image: a }, { image: b }], { indices: [0, 1] }).image!.data;
      const want = reference([a, b], 1 / 255, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
      expect(got.length).toBe(2 * n);
      // Compare without building two 300k-element arrays for toEqual's diff.
      let firstDiff = -1;
      for (let j = 0; j < want.length && firstDiff < 0; j++)
        if (!Object.is(got[j], want[j])) firstDiff = j;
      expect(firstDiff).toBe(-1);
    }
  });
});
