// The decode workers of the pre-decoded source (decodedSource.ts): each serves exposeTransform,
// turning one `medfusion pack --decode` sample (`.npy` uint8 64x64x1, `.json`, `.cls`) into the
// CSV source's sample: pixels in [0, 1], the tabular features standardised with the CSV source's
// own statistics (read here from the demo's manifest, as the PNG path's decode workers read it).
import { decodeNpy } from '@medfusion/core';
import { CsvImageDataset, type CsvImageSample, exposeTransform } from '@medfusion/web';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from '../../demo/src/manifest.js';

/** The demo's images are 64x64 grey: the size the shards must hold. */
const SIDE = 64;
const origin = self.location.origin;
const utf8 = new TextDecoder();
const csv = fetchManifest(origin).then(({ text }) =>
  CsvImageDataset.open({
    csvUrl: manifestBlobUrl(text),
    imageBaseUrl: new URL(IMAGES_PATH, origin).href,
    standardizeTabular: true,
  }),
);

exposeTransform(async (sample): Promise<CsvImageSample> => {
  const { tabularColumns: columns, tabularStats } = await csv;
  const { mean, std } = tabularStats;
  const { npy, json, cls } = sample.files;
  if (!npy || !json || !cls) throw new Error(`${sample.key}: lacks one of .npy, .json, .cls`);
  const { shape, data } = decodeNpy(npy, `${sample.key}.npy`);
  if (shape.join('x') !== `${SIDE}x${SIDE}x1` || !(data instanceof Uint8Array)) {
    throw new Error(`${sample.key}.npy: ${shape.join('x')}, expected uint8 ${SIDE}x${SIDE}x1`);
  }
  // the one allocation per sample: the image the cache keeps, moved to the page, not copied
  const image = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) image[i] = (data[i] as number) / 255;
  const fields = JSON.parse(utf8.decode(json)) as Record<string, number>;
  const tabular = new Float32Array(columns.length);
  for (let c = 0; c < columns.length; c++) {
    tabular[c] =
      ((fields[columns[c] as string] as number) - (mean[c] as number)) / (std[c] as number);
  }
  return { image, tabular, label: Number(utf8.decode(cls)) };
});
