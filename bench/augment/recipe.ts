import { augmentFields, compose, flipH, gaussianNoise, intensity, rotate90 } from '@medfusion/core';

/** A bench sample: a square image `[S, S, C]` in [0, 1] and a label. */
export type BenchSample = {
  image: Float32Array;
  imageShape: number[];
  label: number;
};

/** The standard medical recipe: flip + rotate90 + intensity + noise. */
export const imageRecipe = () =>
  compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.03 })]);

/** The recipe as the DataLoader's in-thread `augment`. */
export const sampleRecipe = () => augmentFields<BenchSample>({ image: imageRecipe() });
