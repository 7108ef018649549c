import type { ReportsLoadPhases } from '@medfusion/core';
import {
  badType,
  bool,
  func,
  optionsBag,
  reportsLoadPhases,
  serializeError,
  showValue,
  withDefault,
} from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import { collectTransferables } from './transferables.js';
import { acceptHandedPorts } from './workerHostProtocol.js';
import { holdLockForever } from './workerLiveness.js';
import { type LoadReply, PROTOCOL_VERSION, type WorkerApi } from './workerProtocol.js';

/**
 * The function a worker runs per sample: `signal` aborts when the page gives
 * up on the call; `input` is what the page passed as `run`'s third argument
 * (a structured clone), `undefined` when it passed none.
 */
export type WorkerLoader<T> = (
  index: number,
  signal: AbortSignal,
  input: unknown,
) => T | Promise<T>;

/** Options of {@link exposeLoader}. */
export interface ExposeLoaderOptions {
  /**
   * Move every `ArrayBuffer` of a returned sample to the page (zero-copy; the
   * worker's buffers are detached afterwards). Turn off only when the worker
   * keeps and reuses the buffers it returns (e.g. its own cache), which then
   * get copied.
   * @default true
   */
  transfer?: boolean;
  /**
   * What reports where this worker's loads spend their time (waiting for bytes vs
   * decoding), or a promise of it: typically the dataset the loader reads, e.g. a
   * `CsvImageDataset`. Its cumulative figures go back with every reply; the pool sums
   * its workers' into `loadPhases()`, which the caching engines put in their stats
   * so `diagnose` can tell decode CPU from source latency.
   * @default undefined (no phases reported)
   */
  phases?: ReportsLoadPhases | PromiseLike<ReportsLoadPhases>;
  /**
   * Where to listen; the worker's global scope unless told otherwise.
   * @default self
   */
  endpoint?: Comlink.Endpoint;
}

/**
 * Serve `loader` to a {@link createWorkerExecutor} pool. Call it once, at the
 * top level of a module worker. Each call gets its own `AbortSignal`, aborted
 * when the page aborts or times the call out; errors the loader throws reach the
 * page with their name, message, stack and `code` — ours (`LoadError`,
 * `AbortError`, `RemoteReadError`, ...) as the same class, anything else as a
 * `WorkerLoadError`.
 *
 * @example
 * // my-loader.worker.ts
 * import { exposeLoader } from '@medfusion/web';
 * exposeLoader(async (index, signal) => {
 *   const res = await fetch(`/images/${index}.png`, { signal });
 *   const bitmap = await createImageBitmap(await res.blob());
 *   const ctx = new OffscreenCanvas(64, 64).getContext('2d')!;
 *   ctx.drawImage(bitmap, 0, 0);
 *   const { data } = ctx.getImageData(0, 0, 64, 64);
 *   return { image: Float32Array.from(data, (v) => v / 255), index };
 * });
 */
export function exposeLoader<T>(loader: WorkerLoader<T>, options: ExposeLoaderOptions = {}): void {
  func('loader', loader);
  exposeWorkerApi((index, signal, input) => loader(index, signal, input), options);
}

/**
 * The worker side of the pool protocol, shared by {@link exposeLoader} and
 * `exposeAugment`: serves `run(index, signal, input)` (input = the call's
 * payload, if the page sent one). Internal.
 */
export function exposeWorkerApi(
  run: (index: number, signal: AbortSignal, input: unknown) => unknown,
  options: ExposeLoaderOptions,
): void {
  optionsBag('options', options);
  const transfer = withDefault('transfer', options.transfer, true, bool);
  const endpoint = withDefault(
    'endpoint',
    options.endpoint,
    globalThis as unknown as Comlink.Endpoint,
    (name, v) => {
      const e = v as Partial<Comlink.Endpoint> | null;
      if (
        e === null ||
        typeof e !== 'object' ||
        typeof e.postMessage !== 'function' ||
        typeof e.addEventListener !== 'function'
      ) {
        throw badType(name, 'a message endpoint (postMessage, addEventListener)', v);
      }
      return e as Comlink.Endpoint;
    },
  );
  const controllers = new Map<number, AbortController>();
  let reporter: ReportsLoadPhases | undefined;
  const phases = options.phases;
  if (phases !== undefined) {
    if (reportsLoadPhases(phases)) reporter = phases;
    else if (phases !== null && typeof (phases as PromiseLike<unknown>).then === 'function') {
      (phases as PromiseLike<unknown>).then(
        (r) => {
          if (reportsLoadPhases(r)) reporter = r;
        },
        () => {}, // the loader's own calls report the failure
      );
    } else {
      throw new TypeError(
        `phases must have a loadPhases() method (or be a promise of one), got ${showValue(phases)}`,
      );
    }
  }

  const api: WorkerApi = {
    async init(lockName) {
      if (lockName !== null) await holdLockForever(lockName);
      return PROTOCOL_VERSION;
    },
    async load(callId, index, input) {
      const controller = new AbortController();
      controllers.set(callId, controller);
      let reply: LoadReply<unknown>;
      try {
        const value = await run(index, controller.signal, input);
        reply = { ok: true, value };
      } catch (error) {
        reply = { ok: false, error: serializeError(error) };
      } finally {
        controllers.delete(callId);
      }
      if (reporter !== undefined) reply.phases = reporter.loadPhases();
      return transfer && reply.ok
        ? Comlink.transfer(reply, collectTransferables(reply.value))
        : reply;
    },
    abort(callId) {
      const controller = controllers.get(callId);
      controllers.delete(callId);
      controller?.abort(new DOMException(`call ${callId} aborted by the page`, 'AbortError'));
    },
    ping: () => PROTOCOL_VERSION,
  };
  Comlink.expose(api, endpoint);
  // Started by a WorkerHost for another thread: serve that thread on the port it hands over too.
  if (options.endpoint === undefined) acceptHandedPorts((port) => Comlink.expose(api, port));
}
