import {
  augmentFields,
  CachedDataset,
  compose,
  flipH,
  fromArray,
  gaussianNoise,
  intensity,
  rotate90,
} from '@medfusion/core';

/** A test image sample: a 4×4 grayscale image, a tabular vector and a label. */
export interface ImageSample {
  image: Float32Array;
  imageShape: number[];
  tabular: Float32Array;
  label: number;
}

/** `n` samples with distinct images (deterministic values). */
export function imageSamples(n: number): ImageSample[] {
  return Array.from({ length: n }, (_, i) => ({
    image: Float32Array.from({ length: 16 }, (_, j) => (((i * 16 + j) * 37) % 101) / 101),
    imageShape: [4, 4, 1],
    tabular: Float32Array.of(i, i / 2),
    label: i % 3,
  }));
}

/** The standard medical recipe on the image field. */
export const standardRecipe = () =>
  augmentFields<ImageSample>({
    image: compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.05 })]),
  });

/** A cache over `samples` holding all of them. */
export const cached = (samples: ImageSample[]) =>
  new CachedDataset(fromArray(samples), { cacheSize: samples.length });

/** The bytes of a Float32Array, for bitwise comparison. */
export const bytes = (a: Float32Array) =>
  Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
