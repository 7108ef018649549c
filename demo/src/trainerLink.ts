// The page's link to the training worker: the worker itself, the host that starts the
// workers it asks for (its decode pool, its OPFS store's worker) on the page, so no worker is
// nested in it, and the watchdog that turns a training run that stops making progress into a
// typed error naming the stage (StallError, code STALLED) instead of a status that never changes.
import {
  createWorkerHost,
  OPFS_STORE_WORKER,
  opfsStoreWorker,
  StallWatchdog,
} from '@medfusion/web';
import * as Comlink from 'comlink';
import { LOADER_WORKER } from './hostedWorkers.js';
import type { Settings } from './settings.js';
import { workerName } from './trace.js';
import type { TrainEvent, Trainer, TrainResult } from './trainer.worker.js';

/** Longest time a run may go without any event from the training worker. */
export const STALL_MS = 60_000;

/**
 * Workers the training worker may ask for. In Firefox a worker that starts workers itself
 * could stall for good inside `new Worker()` under load (docs/workers.md, "Workers of a
 * worker"); started here, they talk to the training worker over ports of their own.
 */
const host = createWorkerHost({
  workers: {
    [LOADER_WORKER]: () =>
      new Worker(new URL('./loader.worker.ts', import.meta.url), {
        type: 'module',
        name: workerName('decode'),
      }),
    [OPFS_STORE_WORKER]: opfsStoreWorker,
  },
});

/** TF.js, the model and the pipeline run in this worker; the page renders what it reports. */
export const trainer = Comlink.wrap<Trainer>(
  new Worker(new URL('./trainer.worker.ts', import.meta.url), {
    type: 'module',
    name: workerName('trainer'),
  }),
);
const port = host.connect();
void trainer.connectHost(Comlink.transfer(port, [port]));

/** What the status line says while the run is at each kind of event. */
function stageOf(e: TrainEvent): string {
  if (e.type === 'phase') {
    return e.phase === 'model' ? 'building the model' : 'loading the first batch';
  }
  if (e.type === 'step') return `training (step ${e.step.info.step})`;
  if (e.type === 'epoch') return `starting epoch ${e.epoch}`;
  return e.type === 'disk' ? 'writing to disk' : 'training';
}

/**
 * `trainer.train`, watched: every event is progress; a run with none for {@link STALL_MS}
 * rejects with a StallError naming the stage it was in (the worker is left as it is).
 */
export function trainWatched(
  s: Settings,
  online: boolean,
  onEvent: (e: TrainEvent) => Promise<void> | undefined,
): Promise<TrainResult> {
  const watchdog = new StallWatchdog({
    stallMs: STALL_MS,
    stage: 'opening the data set and the pipeline',
  });
  const watched = (e: TrainEvent) => {
    watchdog.progress(stageOf(e));
    return onEvent(e);
  };
  return watchdog.watch(trainer.train(s, online, Comlink.proxy(watched)));
}
