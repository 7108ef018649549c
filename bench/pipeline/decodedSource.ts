// The pre-decoded source of the pipeline page: `medfusion pack <demo manifest.csv> --decode`
// shards (`<key>.npy` uint8 HxWx1, `<key>.json` the CSV's other columns, `<key>.cls` the label)
// served under /data/<dir>/, read by WebDatasetSource with range requests on the page, each
// sample's bytes moved to a pool of 2 Web Workers (transformExecutor; decoded.worker.ts runs
// exposeTransform) as the PNG path's 2 decode workers, so the page's thread only reads and trains.
// The samples are shaped like the CSV source's: pixels in [0, 1] and the tabular features
// standardised with the CSV source's own statistics, so the same model trains on the same numbers.
import {
  type CsvImageDataset,
  type CsvImageSample,
  createWorkerExecutor,
  WebDatasetSource,
} from '@medfusion/web';
import type { PipelineSource } from '../../demo/src/pipeline.js';
import { DEFAULTS } from '../../demo/src/settings.js';

/** Calls in flight per decode worker: the demo's decode pool's (demo/src/pipeline.ts). */
const WORKER_CONCURRENCY = 16;

/** The source and what closes it (the shards' reads and the decode workers). */
export interface DecodedSource {
  source: PipelineSource;
  close(): Promise<void>;
}

/** Open `/data/<dir>/manifest.json` as a `shards` pipeline source beside the CSV one. */
export async function openDecodedSource(csv: CsvImageDataset, dir: string): Promise<DecodedSource> {
  const features = csv.tabularColumns.length;
  const executor = createWorkerExecutor<CsvImageSample>({
    worker: () => new Worker(new URL('./decoded.worker.ts', import.meta.url), { type: 'module' }),
    poolSize: DEFAULTS.workers,
    concurrency: WORKER_CONCURRENCY,
  });
  const manifestUrl = new URL(`/data/${dir}/manifest.json`, location.origin).href;
  let dataset: WebDatasetSource<CsvImageSample>;
  try {
    dataset = await WebDatasetSource.open<CsvImageSample>({
      manifestUrl,
      transformExecutor: executor,
    });
  } catch (error) {
    await executor.close();
    throw error;
  }
  return {
    source: {
      kind: 'shards',
      dataset,
      features,
      fingerprint: { name: `medfusion-bench-${dir}`, version: String(dataset.length) },
      detail: `${features} tabular features, pre-decoded shards decoded in ${DEFAULTS.workers} Web Workers`,
    },
    close: async () => {
      dataset.close();
      await executor.close();
    },
  };
}
