// The pre-decoded source of the pipeline page: `medfusion pack <demo manifest.csv> --decode`
// shards (`<key>.npy` uint8 HxWx1, `<key>.json` the CSV's other columns, `<key>.cls` the label)
// served under /data/<dir>/, read by WebDatasetSource with range requests, shaped like the CSV
// source's samples: pixels in [0, 1] and the tabular features standardised with the CSV source's
// own statistics, so the same model trains on the same numbers.
import { decodeNpy } from '@medfusion/core';
import { type CsvImageDataset, type CsvImageSample, WebDatasetSource } from '@medfusion/web';
import type { PipelineSource } from '../../demo/src/pipeline.js';

/** The demo's images are 64x64 grey: the size the shards must hold. */
const SIDE = 64;

/** Open `/data/<dir>/manifest.json` as a `shards` pipeline source beside the CSV one. */
export async function openDecodedSource(
  csv: CsvImageDataset,
  dir: string,
): Promise<PipelineSource> {
  const columns = csv.tabularColumns;
  const { mean, std } = csv.tabularStats;
  const utf8 = new TextDecoder();
  const manifestUrl = new URL(`/data/${dir}/manifest.json`, location.origin).href;
  const dataset = await WebDatasetSource.open<CsvImageSample>({
    manifestUrl,
    transform: (sample) => {
      const { npy, json, cls } = sample.files;
      if (!npy || !json || !cls) throw new Error(`${sample.key}: lacks one of .npy, .json, .cls`);
      const { shape, data } = decodeNpy(npy, `${sample.key}.npy`);
      if (shape.join('x') !== `${SIDE}x${SIDE}x1` || !(data instanceof Uint8Array)) {
        throw new Error(`${sample.key}.npy: ${shape.join('x')}, expected uint8 ${SIDE}x${SIDE}x1`);
      }
      const image = new Float32Array(data.length);
      for (let i = 0; i < data.length; i++) image[i] = (data[i] as number) / 255;
      const fields = JSON.parse(utf8.decode(json)) as Record<string, number>;
      const tabular = new Float32Array(columns.length);
      for (let c = 0; c < columns.length; c++) {
        tabular[c] =
          ((fields[columns[c] as string] as number) - (mean[c] as number)) / (std[c] as number);
      }
      return { image, tabular, label: Number(utf8.decode(cls)) };
    },
  });
  return {
    kind: 'shards',
    dataset,
    features: columns.length,
    fingerprint: { name: `medfusion-bench-${dir}`, version: String(dataset.length) },
    detail: `${columns.length} tabular features, pre-decoded shards`,
  };
}
