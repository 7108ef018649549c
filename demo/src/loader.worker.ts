// Runs in each Web Worker of the pool: fetches and decodes one sample per call.
// Each worker reads the manifest once (network, else the offline copy).
import { CsvImageDataset, exposeLoader } from '@medfusion/web';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from './manifest.js';

const origin = self.location.origin;
const ready = fetchManifest(origin).then(({ text }) =>
  CsvImageDataset.open({
    csvUrl: manifestBlobUrl(text),
    imageBaseUrl: new URL(IMAGES_PATH, origin).href,
    standardizeTabular: true,
  }),
);

// phases: the time each load waits for bytes vs decodes goes back with every reply, so the
// live bottleneck line can tell decoding from the source
exposeLoader(async (index, signal) => (await ready).get(index, { signal }), { phases: ready });
