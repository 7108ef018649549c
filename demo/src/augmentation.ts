import {
  type AugmentFn,
  AugmentRng,
  augmentFields,
  checksum,
  compose,
  type Dataset,
  flipH,
  gaussianNoise,
  intensity,
  rotate90,
} from '@medfusion/core';
import type { CsvImageSample } from '@medfusion/web';

/** Views shown in the grid: one per epoch. */
export const GRID_EPOCHS = 8;
/** The sample the grid shows. */
const GRID_INDEX = 0;

/** `[H, W, C]` of a flat square image (grayscale when the length is a square, else RGB). */
function shapeOf(length: number): [number, number, number] {
  const c = Number.isInteger(Math.sqrt(length)) ? 1 : 3;
  const side = Math.round(Math.sqrt(length / c));
  return [side, side, c];
}

/**
 * The standard medical recipe (flip + quarter turns + intensity + noise) as
 * the DataLoader's `augment`: it runs after the cache, so every epoch shows
 * the model new views while the cache keeps the decoded images.
 */
export function standardAugment(): AugmentFn<CsvImageSample> {
  const byLength = new Map<number, AugmentFn<CsvImageSample>>();
  return (sample, ctx) => {
    const n = sample.image.length;
    let recipe = byLength.get(n);
    if (recipe === undefined) {
      recipe = augmentFields<CsvImageSample>(
        { image: compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.03 })]) },
        { shapes: { image: shapeOf(n) } },
      );
      byLength.set(n, recipe);
    }
    return recipe(sample, ctx);
  };
}

/** Sample 0's views across epochs, as training sees them (computed in the training worker). */
export interface AugmentViews {
  /** One view per epoch 1..{@link GRID_EPOCHS}. */
  views: Float32Array[];
  /** `[H, W, C]` of each view. */
  shape: [number, number, number];
}

/** Sample 0's augmented views for epochs 1..{@link GRID_EPOCHS}, as the loader with `seed` hands them to training. */
export async function augmentViews(
  dataset: Dataset<CsvImageSample>,
  seed: number,
): Promise<AugmentViews> {
  const sample = await dataset.get(GRID_INDEX);
  const augment = standardAugment();
  const rng = new AugmentRng();
  const views: Float32Array[] = [];
  for (let epoch = 0; epoch < GRID_EPOCHS; epoch++) {
    rng.reset(seed, epoch, GRID_INDEX);
    views.push(augment(sample, { seed, epoch, index: GRID_INDEX, rng }).image);
  }
  return { views, shape: shapeOf(sample.image.length) };
}

/**
 * Draw the views into `grid`, one canvas per epoch with `data-epoch` and
 * `data-hash` (a checksum of the view) for tools.
 */
export function drawAugmentGrid(grid: HTMLElement, { views, shape }: AugmentViews): void {
  const [h, w, c] = shape;
  const cells: HTMLElement[] = [];
  views.forEach((view, epoch) => {
    const canvas = document.createElement('canvas');
    canvas.width = w;
    canvas.height = h;
    const pixels = new ImageData(w, h);
    for (let p = 0; p < w * h; p++) {
      for (let k = 0; k < 3; k++) {
        const v = view[p * c + (c === 1 ? 0 : k)] ?? 0;
        pixels.data[p * 4 + k] = Math.round(Math.min(1, Math.max(0, v)) * 255);
      }
      pixels.data[p * 4 + 3] = 255;
    }
    canvas.getContext('2d')?.putImageData(pixels, 0, 0);
    canvas.dataset.epoch = String(epoch + 1);
    canvas.dataset.hash = checksum(
      new Uint8Array(view.buffer, view.byteOffset, view.byteLength),
    ).toString(16);
    canvas.title = `epoch ${epoch + 1}`;
    const cell = document.createElement('figure');
    const caption = document.createElement('figcaption');
    caption.textContent = `epoch ${epoch + 1}`;
    cell.append(canvas, caption);
    cells.push(cell);
  });
  grid.replaceChildren(...cells);
}
