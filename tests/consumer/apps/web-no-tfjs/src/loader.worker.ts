// The app's loader worker: reads the CSV manifest and decodes one PNG per call.
import { CsvImageDataset, exposeLoader } from '@medfusion/web';

const source = CsvImageDataset.open({
  csvUrl: new URL('/manifest.csv', location.origin),
  imageBaseUrl: new URL('/images/', location.origin),
});

exposeLoader(async (index, signal) => (await source).get(index, { signal }));
