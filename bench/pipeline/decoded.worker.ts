// The decode workers of the pre-decoded source (decodedSource.ts): each serves exposeTransform
// with decodeShardSample, the tabular statistics read here from the demo's manifest (as the PNG
// path's decode workers read it).
import { CsvImageDataset, exposeTransform } from '@medfusion/web';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from '../../demo/src/manifest.js';
import { decodeShardSample, type TabularStats } from './decodeShardSample.js';

const origin = self.location.origin;
const stats: Promise<TabularStats> = fetchManifest(origin)
  .then(({ text }) =>
    CsvImageDataset.open({
      csvUrl: manifestBlobUrl(text),
      imageBaseUrl: new URL(IMAGES_PATH, origin).href,
      standardizeTabular: true,
    }),
  )
  .then((csv) => ({ columns: csv.tabularColumns, ...csv.tabularStats }));

exposeTransform(async (sample) => decodeShardSample(sample, await stats));
