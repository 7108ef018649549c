// @medfusion/web in an app without TF.js: a source (CSV + PNG), the OPFS store
// (its own worker, bundled from inside the package), the IndexedDB store and the
// app's loader worker. Publishes what it saw on document.body.dataset.
import {
  CsvImageDataset,
  type CsvImageSample,
  createWorkerExecutor,
  IdbStore,
  OpfsStore,
  type PersistentStore,
} from '@medfusion/web';

async function roundTrip(store: PersistentStore): Promise<number[]> {
  try {
    await store.put('sample-0', new Uint8Array([1, 2, 3]));
    return Array.from((await store.get('sample-0')) ?? []);
  } finally {
    await store.close?.();
  }
}

async function run(): Promise<Record<string, unknown>> {
  const source = await CsvImageDataset.open({
    csvUrl: new URL('/manifest.csv', location.origin),
    imageBaseUrl: new URL('/images/', location.origin),
  });
  const onPage = await source.get(0);
  const executor = createWorkerExecutor<CsvImageSample>({
    worker: () => new Worker(new URL('./loader.worker.ts', import.meta.url), { type: 'module' }),
    poolSize: 1,
  });
  try {
    const inWorker = await executor.run(1);
    return {
      rows: source.length,
      classes: source.classes.length,
      pagePixels: onPage.image.length,
      workerPixels: inWorker.image.length,
      workerLabel: inWorker.label,
      opfs: await roundTrip(new OpfsStore({ dir: `consumer-opfs-${Date.now()}` })),
      idb: await roundTrip(new IdbStore({ name: `consumer-idb-${Date.now()}` })),
    };
  } finally {
    await executor.close();
  }
}

run().then(
  (result) => {
    document.body.dataset.result = JSON.stringify(result);
  },
  (error: unknown) => {
    document.body.dataset.error =
      error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error);
  },
);
