// The plain scenario's training worker (see plain.ts): one DataLoader epoch over the demo's
// CSV + PNG data set, the loads decoded by a pool of 2 workers — asked of the page's WorkerHost,
// or, in `nested` mode, started here (`hang`: hosted, and waits forever before the first batch).
import { DataLoader, fromLoader, PrefetchDataset } from '@medfusion/core';
import { CsvImageDataset, connectWorkerHost, createWorkerExecutor } from '@medfusion/web';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from '../../../demo/src/manifest.js';
import { trace, workerName } from '../../../demo/src/trace.js';
import type { PlainDone, PlainStart } from './plainProtocol.js';

async function epoch({ mode, host: port, samples }: PlainStart): Promise<number> {
  const host = connectWorkerHost(port);
  trace('opening the manifest');
  const { text } = await fetchManifest(self.location.origin);
  const csv = await CsvImageDataset.open({
    csvUrl: manifestBlobUrl(text),
    imageBaseUrl: new URL(IMAGES_PATH, self.location.origin).href,
  });
  const length = samples > 0 ? Math.min(samples, csv.length) : csv.length;
  trace(`starting the decode pool (${mode})`);
  const executor = createWorkerExecutor({
    worker:
      mode !== 'nested'
        ? () => host.spawn('loader')
        : () =>
            new Worker(new URL('../../../demo/src/loader.worker.ts', import.meta.url), {
              type: 'module',
              name: workerName('decode'),
            }),
    poolSize: 2,
  });
  const source = fromLoader(length, () => {
    throw new Error('loads run in the decode pool');
  });
  const dataset = new PrefetchDataset(source, { prefetchSize: 32, numWorkers: 16, executor });
  let delivered = 0;
  try {
    if (mode === 'hang') {
      trace('pool started; hanging on purpose');
      await new Promise<never>(() => {});
    }
    trace('pool started; asking for the first batch');
    for await (const batch of new DataLoader(dataset, { batchSize: 32, shuffle: true, seed: 7 })) {
      delivered += (batch.label as { shape: number[] }).shape[0] ?? 0;
      trace(`batch: ${delivered} samples`);
    }
  } finally {
    await dataset.close();
    await executor.close();
    host.close();
  }
  return delivered;
}

self.onmessage = ({ data }: MessageEvent<PlainStart>) => {
  trace('message from the page');
  epoch(data).then(
    (delivered) => self.postMessage({ delivered } satisfies PlainDone),
    (err: unknown) => self.postMessage({ delivered: 0, error: String(err) } satisfies PlainDone),
  );
};
trace('module evaluated');
