import { ClosedError } from '@medfusion/core';
import { abortSignal, describe, func, object, positiveInt } from '@medfusion/core/internal';
import {
  HOST_PROTOCOL_VERSION,
  type HostReply,
  type HostRequest,
  hostMessage,
  WORKER_CONNECT,
} from './workerHostProtocol.js';
import { watchLock } from './workerLiveness.js';

/** Options of {@link createWorkerHost}. */
export interface WorkerHostOptions {
  /**
   * The workers a connected thread may ask for, by name: each a factory of a new
   * module `Worker` (your bundler sees the usual `new Worker(new URL(…))` in it).
   * A thread can start no other. A worker of a loader pool calls `exposeLoader`;
   * `OPFS_STORE_WORKER: opfsStoreWorker` lets an `OpfsStore` opened in a worker
   * have its own worker started here too.
   * @example { loader: () => new Worker(new URL('./loader.worker.ts', import.meta.url), { type: 'module' }) }
   */
  workers: Record<string, () => Worker>;
  /**
   * Most workers alive at once over every connected thread; a request beyond it
   * fails like a worker that could not start (an `error` event on its handle).
   * @default 64
   */
  maxWorkers?: number;
  /**
   * Aborting it closes the host, as {@link WorkerHost.close} does.
   * @default undefined
   */
  signal?: AbortSignal;
}

/** Starts Web Workers on this thread (the page) for other threads: see {@link createWorkerHost}. */
export interface WorkerHost {
  /**
   * A new port for one thread, e.g. the training worker: transfer it there
   * (`postMessage(port, [port])`, or comlink's `transfer`) and pass it to
   * `connectWorkerHost`. Throws `ClosedError` after {@link WorkerHost.close}.
   */
  connect(): MessagePort;
  /** Workers this host started that are alive now. */
  readonly liveWorkers: number;
  /** Terminate every worker this host started and close every port it gave out. Idempotent. */
  close(): void;
}

/**
 * Start Web Workers on the page on behalf of another thread, so that thread
 * needs no nested workers. In Firefox a worker that creates workers itself can
 * stall for good under load inside `new Worker()` (docs/workers.md, "Workers
 * of a worker"); with a host, the training worker asks the page for each worker
 * and talks to it over a `MessagePort` of its own: no hop through the page per
 * message. The thread's side is `connectWorkerHost`; a worker made this way runs
 * `exposeLoader` unchanged.
 *
 * @example
 * const host = createWorkerHost({
 *   workers: { loader: () => new Worker(new URL('./loader.worker.ts', import.meta.url), { type: 'module' }) },
 * });
 * const port = host.connect();
 * trainingWorker.postMessage({ host: port }, [port]);
 */
export function createWorkerHost(options: WorkerHostOptions): WorkerHost {
  object('options', options);
  const factories = object('workers', options.workers) as Record<string, unknown>;
  for (const [name, factory] of Object.entries(factories)) func(`workers.${name}`, factory);
  const maxWorkers =
    options.maxWorkers === undefined ? 64 : positiveInt('maxWorkers', options.maxWorkers);
  const signal = options.signal === undefined ? undefined : abortSignal('signal', options.signal);
  const names = Object.keys(factories);
  /** Each connected thread's port and the workers it asked for, by its request id. */
  const threads = new Map<MessagePort, Map<number, Worker>>();
  let live = 0;
  let closed = false;

  function stop(workers: Map<number, Worker>, id: number): void {
    const worker = workers.get(id);
    if (!worker) return;
    workers.delete(id);
    live--;
    worker.terminate();
  }

  function serve(port: MessagePort, workers: Map<number, Worker>, data: unknown): void {
    const request = hostMessage<HostRequest>(data);
    if (!request || closed) return;
    if (request.type === 'terminate') {
      stop(workers, request.id);
      return;
    }
    if (request.type === 'hello') {
      // The thread is gone (terminated, crashed) once its lock is free: its workers go too.
      if (typeof navigator !== 'undefined' && navigator.locks) {
        watchLock(request.lock, watch.signal, () => drop(port));
      }
      return;
    }
    const reply = (message: HostReply) => port.postMessage(message);
    const failed = (message: string) => {
      reply({ v: HOST_PROTOCOL_VERSION, type: 'error', id: request.id, message });
      request.port.close();
    };
    const factory = Object.hasOwn(factories, request.name)
      ? (factories[request.name] as () => Worker)
      : undefined;
    if (factory === undefined) {
      failed(`the page offers no worker named '${request.name}' (it offers ${names.join(', ')})`);
      return;
    }
    if (live >= maxWorkers) {
      failed(`the page's worker host has ${maxWorkers} workers alive already (maxWorkers)`);
      return;
    }
    let worker: Worker;
    try {
      worker = factory();
    } catch (error) {
      failed(`the page's factory for '${request.name}' threw: ${describe(error)}`);
      return;
    }
    workers.set(request.id, worker);
    live++;
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      const message = event.message || 'script failed to load';
      reply({ v: HOST_PROTOCOL_VERSION, type: 'error', id: request.id, message });
    });
    worker.addEventListener('messageerror', () => {
      reply({ v: HOST_PROTOCOL_VERSION, type: 'messageerror', id: request.id });
    });
    // The worker's own end of the thread's channel: exposeLoader serves on it.
    worker.postMessage({ [WORKER_CONNECT]: HOST_PROTOCOL_VERSION, port: request.port }, [
      request.port,
    ]);
  }

  /** Forget a thread: terminate its workers, close its port. */
  function drop(port: MessagePort): void {
    const workers = threads.get(port);
    if (!workers) return;
    threads.delete(port);
    for (const id of [...workers.keys()]) stop(workers, id);
    port.close();
  }

  const watch = new AbortController();
  const host: WorkerHost = {
    connect() {
      if (closed) throw new ClosedError('WorkerHost');
      const channel = new MessageChannel();
      const port = channel.port1;
      const workers = new Map<number, Worker>();
      threads.set(port, workers);
      port.onmessage = (event: MessageEvent<unknown>) => serve(port, workers, event.data);
      port.postMessage({ v: HOST_PROTOCOL_VERSION, type: 'offer', names } satisfies HostReply);
      return channel.port2;
    },
    get liveWorkers() {
      return live;
    },
    close() {
      if (closed) return;
      closed = true;
      watch.abort();
      for (const port of [...threads.keys()]) drop(port);
    },
  };
  if (signal?.aborted) host.close();
  else signal?.addEventListener('abort', () => host.close(), { once: true });
  return host;
}
