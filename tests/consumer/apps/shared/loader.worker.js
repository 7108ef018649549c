// @ts-check
// The app's loader, run in each Web Worker of the pool: makes sample `index`
// itself (no files): 16 features, label = index % 2, the two classes separable.
import { exposeLoader } from '@medfusion/web';

/** @param {number} index */
function makeSample(index) {
  const label = index % 2;
  const image = new Float32Array(16);
  for (let i = 0; i < image.length; i++) {
    const noise = (((index * 7919 + i * 104729) % 1000) / 1000 - 0.5) * 0.2;
    image[i] = i < 8 === (label === 0) ? 1 + noise : noise;
  }
  return { image, label };
}

exposeLoader(async (index) => makeSample(index));
