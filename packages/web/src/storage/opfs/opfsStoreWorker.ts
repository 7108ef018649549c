import { currentWorkerHost } from '../../workers/workerHostClient.js';

/**
 * The name a `WorkerHost` offers the OPFS store's worker under: with it, an
 * `OpfsStore` opened in a worker that called `connectWorkerHost` has its
 * worker started by the page, not nested in its own thread.
 */
export const OPFS_STORE_WORKER = 'medfusion:opfs-store';

/**
 * A new worker of the kind an `OpfsStore` runs its files in: the factory to
 * offer as `workers[OPFS_STORE_WORKER]` of `createWorkerHost`.
 *
 * @example
 * createWorkerHost({ workers: { [OPFS_STORE_WORKER]: opfsStoreWorker } });
 */
export function opfsStoreWorker(): Worker {
  return new Worker(new URL('./opfs.worker.js', import.meta.url), {
    type: 'module',
    name: 'medfusion-opfs',
  });
}

/**
 * The store's worker: from this thread's worker host when it offers one (no
 * nested worker), else started here. Internal.
 */
export async function startStoreWorker(): Promise<Worker> {
  const host = currentWorkerHost();
  if (host && (await host.offers(OPFS_STORE_WORKER))) return host.spawn(OPFS_STORE_WORKER);
  return opfsStoreWorker();
}
