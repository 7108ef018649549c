// Expected decoded values of the fixtures (browser side), from tests/dicom/fixtureImages.ts.
import { type FixtureImage, IMAGES, storedSamples } from './fixtureImages.js';

export function imageNamed(name: string): FixtureImage {
  const image = IMAGES.find((i) => i.name === name);
  if (!image) throw new Error(`no fixture image ${name}`);
  return image;
}

/** Stored samples rescaled (grey) or as stored (colour). */
export function rescaled(image: FixtureImage): number[] {
  const grey = image.samplesPerPixel === 1;
  return storedSamples(image).map((v) =>
    grey ? v * image.rescaleSlope + image.rescaleIntercept : v,
  );
}

/** Largest absolute difference between two equally long sequences. */
export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
}

/** DICOM PS3.3 C.11.2.1.2.1 linear window to [0, 1], written out independently. */
export function windowed(x: number, c: number, w: number): number {
  if (x <= c - 0.5 - (w - 1) / 2) return 0;
  if (x > c - 0.5 + (w - 1) / 2) return 1;
  return (x - (c - 0.5)) / (w - 1) + 0.5;
}
