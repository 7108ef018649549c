// The pre-decoded source of the pipeline page: `medfusion pack <demo manifest.csv> --decode`
// shards served under /data/<dir>/, read by WebDatasetSource with range requests on the page.
// `workers`: each sample's bytes are moved to a pool of 2 Web Workers (transformExecutor;
// decoded.worker.ts runs exposeTransform) as the PNG path's 2 decode workers, so the page's
// thread only reads and trains. `page`: the same decodeShardSample as the source's transform,
// on the page's thread (how the bench ran before; kept to measure the difference in one run).
import {
  type CsvImageDataset,
  type CsvImageSample,
  createWorkerExecutor,
  WebDatasetSource,
} from '@medfusion/web';
import type { PipelineSource } from '../../demo/src/pipeline.js';
import { DEFAULTS } from '../../demo/src/settings.js';
import { decodeShardSample } from './decodeShardSample.js';

/** Calls in flight per decode worker: the demo's decode pool's (demo/src/pipeline.ts). */
const WORKER_CONCURRENCY = 16;

/** The source and what closes it (the shards' reads and the decode workers). */
export interface DecodedSource {
  source: PipelineSource;
  close(): Promise<void>;
}

/** Open `/data/<dir>/manifest.json` as a `shards` pipeline source beside the CSV one. */
export async function openDecodedSource(
  csv: CsvImageDataset,
  dir: string,
  decodeOn: 'workers' | 'page',
): Promise<DecodedSource> {
  const stats = { columns: csv.tabularColumns, ...csv.tabularStats };
  const features = stats.columns.length;
  const executor =
    decodeOn === 'workers'
      ? createWorkerExecutor<CsvImageSample>({
          worker: () =>
            new Worker(new URL('./decoded.worker.ts', import.meta.url), { type: 'module' }),
          poolSize: DEFAULTS.workers,
          concurrency: WORKER_CONCURRENCY,
        })
      : undefined;
  const manifestUrl = new URL(`/data/${dir}/manifest.json`, location.origin).href;
  let dataset: WebDatasetSource<CsvImageSample>;
  try {
    dataset = await WebDatasetSource.open<CsvImageSample>(
      executor
        ? { manifestUrl, transformExecutor: executor }
        : { manifestUrl, transform: (sample) => decodeShardSample(sample, stats) },
    );
  } catch (error) {
    await executor?.close();
    throw error;
  }
  return {
    source: {
      kind: 'shards',
      dataset,
      features,
      fingerprint: { name: `medfusion-bench-${dir}`, version: String(dataset.length) },
      detail: `${features} tabular features, pre-decoded shards decoded on the ${
        executor ? `${DEFAULTS.workers} Web Workers` : "page's thread"
      }`,
    },
    close: async () => {
      dataset.close();
      await executor?.close();
    },
  };
}
