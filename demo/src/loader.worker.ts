// Runs in each Web Worker of the pool: fetches and decodes one sample per call.
// Each worker reads the manifest once (network, else the offline copy).
import { CsvImageDataset, exposeLoader } from '@medfusion/web';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from './manifest.js';
import { trace } from './trace.js';

trace('module evaluated');
const origin = self.location.origin;
const ready = fetchManifest(origin).then(async ({ text }) => {
  trace('manifest fetched');
  const dataset = await CsvImageDataset.open({
    csvUrl: manifestBlobUrl(text),
    imageBaseUrl: new URL(IMAGES_PATH, origin).href,
    standardizeTabular: true,
  });
  trace('dataset open');
  return dataset;
});

// phases: the time each load waits for bytes vs decodes goes back with every reply, so the
// live bottleneck line can tell decoding from the source
exposeLoader(
  async (index, signal) => {
    trace(`load ${index}`);
    const sample = await (await ready).get(index, { signal });
    trace(`loaded ${index}`);
    return sample;
  },
  { phases: ready },
);
