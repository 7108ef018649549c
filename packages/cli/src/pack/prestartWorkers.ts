// Kept light (Node built-ins only): bin.ts imports it before anything else loads.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Worker threads of a pack's pool: one per core, at most 8. */
export function poolSize(): number {
  return Math.min(8, Math.max(1, availableParallelism()));
}

/** Start one worker thread of the pool (see ScanPool). */
export function startPoolWorker(): Worker {
  // A small young generation: a worker's heap holds one message's work, and each
  // worker's default (up to 48 MB) counted against the pack's flat memory.
  return new Worker(new URL('./scanWorker.js', import.meta.url), {
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
}

/** Workers started ahead, with the first error each raised before a pool took it. */
let prestarted: { worker: Worker; error?: unknown }[] | undefined;

/**
 * Start the pool's workers now, before the pack's modules load: they load theirs
 * meanwhile. They are unreferenced (they keep no process alive, e.g. when the
 * arguments turn out wrong) until a pool takes them with {@link takePrestarted}.
 */
export function prestartWorkers(): void {
  prestarted ??= Array.from({ length: poolSize() }, () => {
    const entry: { worker: Worker; error?: unknown } = { worker: startPoolWorker() };
    entry.worker.once('error', (error) => {
      entry.error ??= error;
    });
    entry.worker.unref();
    return entry;
  });
}

/** The workers {@link prestartWorkers} started (once; later calls get undefined), referenced again. */
export function takePrestarted(): { worker: Worker; error?: unknown }[] | undefined {
  const taken = prestarted;
  prestarted = undefined;
  for (const { worker } of taken ?? []) worker.ref();
  return taken;
}
