// One `medfusion pack --decode` sample of the demo's data (`.npy` uint8 64x64x1, `.json` the
// CSV's other columns, `.cls` the label) as the CSV source's sample: pixels in [0, 1], the
// tabular features standardised with the CSV source's own statistics. Run by the decode workers
// (decoded.worker.ts) and, for the `decoded-page` competitor, on the page (decodedSource.ts).
import { decodeNpy } from '@medfusion/core';
import type { CsvImageSample, WebDatasetSample } from '@medfusion/web';

/** The demo's images are 64x64 grey: the size the shards must hold. */
const SIDE = 64;
const utf8 = new TextDecoder();

/** The CSV source's tabular columns and their statistics. */
export interface TabularStats {
  columns: readonly string[];
  mean: ArrayLike<number>;
  std: ArrayLike<number>;
}

export function decodeShardSample(sample: WebDatasetSample, stats: TabularStats): CsvImageSample {
  const { columns, mean, std } = stats;
  const { npy, json, cls } = sample.files;
  if (!npy || !json || !cls) throw new Error(`${sample.key}: lacks one of .npy, .json, .cls`);
  const { shape, data } = decodeNpy(npy, `${sample.key}.npy`);
  if (shape.join('x') !== `${SIDE}x${SIDE}x1` || !(data instanceof Uint8Array)) {
    throw new Error(`${sample.key}.npy: ${shape.join('x')}, expected uint8 ${SIDE}x${SIDE}x1`);
  }
  // the one allocation per sample: the image the cache keeps (from a worker: moved, not copied)
  const image = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) image[i] = (data[i] as number) / 255;
  const fields = JSON.parse(utf8.decode(json)) as Record<string, number>;
  const tabular = new Float32Array(columns.length);
  for (let c = 0; c < columns.length; c++) {
    tabular[c] =
      ((fields[columns[c] as string] as number) - (mean[c] as number)) / (std[c] as number);
  }
  return { image, tabular, label: Number(utf8.decode(cls)) };
}
