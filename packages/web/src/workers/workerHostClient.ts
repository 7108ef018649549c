import { ClosedError } from '@medfusion/core';
import { abortSignal, nonEmptyString, optionsBag } from '@medfusion/core/internal';
import {
  HOST_PROTOCOL_VERSION,
  type HostReply,
  type HostRequest,
  hostMessage,
} from './workerHostProtocol.js';
import { holdLockForever } from './workerLiveness.js';

/** Options of {@link connectWorkerHost}. */
export interface ConnectWorkerHostOptions {
  /**
   * Aborting it closes the connection, as {@link WorkerHostClient.close} does.
   * @default undefined
   */
  signal?: AbortSignal;
}

/** A thread's link to the page's {@link createWorkerHost}: see {@link connectWorkerHost}. */
export interface WorkerHostClient {
  /**
   * A handle on a new worker `name` (one the page offers) that the page starts
   * at once: a `Worker` for `createWorkerExecutor` and comlink (`postMessage`,
   * `message` listeners, `terminate()`, an `error` event when it fails to
   * start, throws or the page refuses it). Messages travel on a channel of its
   * own between this thread and that worker.
   * @example
   * createWorkerExecutor({ worker: () => host.spawn('loader'), poolSize: 2 });
   */
  spawn(name: string): Worker;
  /**
   * Whether the page offers worker `name`: resolves once the page's list has
   * come (it is sent first), false when the link is closed or no list came within 5 s.
   */
  offers(name: string): Promise<boolean>;
  /** Terminate every worker it asked for and close the link. Idempotent. */
  close(): void;
}

/** How long {@link WorkerHostClient.offers} waits for the page's offer. */
const OFFER_WAIT_MS = 5000;

/** The connection of this thread that library code (the OPFS store) asks first, if any. */
let scopeHost: WorkerHostClient | undefined;

/** This thread's connected worker host, if `connectWorkerHost` was called here and is open. Internal. */
export function currentWorkerHost(): WorkerHostClient | undefined {
  return scopeHost;
}

/**
 * The other end of {@link createWorkerHost}: in a worker (e.g. the training
 * worker), take the port the page's host gave and get workers started by the
 * page instead of nested in this one. It also becomes this thread's host for
 * the library's own workers: an `OpfsStore` opened here has its worker started
 * by the page when the page offers `OPFS_STORE_WORKER`.
 *
 * @example
 * // training worker
 * self.onmessage = ({ data }) => {
 *   const host = connectWorkerHost(data.host);
 *   const executor = createWorkerExecutor({ worker: () => host.spawn('loader'), poolSize: 2 });
 * };
 */
export function connectWorkerHost(
  port: MessagePort,
  options: ConnectWorkerHostOptions = {},
): WorkerHostClient {
  if (!(port instanceof MessagePort)) {
    throw new TypeError('port must be the MessagePort a WorkerHost gave (host.connect())');
  }
  optionsBag('options', options);
  const signal = options.signal === undefined ? undefined : abortSignal('signal', options.signal);
  const handles = new Map<number, HostedWorker>();
  let seq = 0;
  let closed = false;
  let offered: ((names: string[]) => void) | undefined;
  const names = new Promise<string[]>((resolve) => {
    offered = resolve;
  });
  const send = (request: HostRequest, transfer: Transferable[] = []) =>
    port.postMessage(request, transfer);
  port.onmessage = (event: MessageEvent<unknown>) => {
    const reply = hostMessage<HostReply>(event.data);
    if (!reply) return;
    if (reply.type === 'offer') offered?.(reply.names);
    else if (reply.type === 'error') handles.get(reply.id)?.failed(reply.message);
    else handles.get(reply.id)?.dispatchEvent(new Event('messageerror'));
  };
  if (typeof navigator !== 'undefined' && navigator.locks) {
    // The page lets our workers go once this thread is gone (its lock is free).
    const lock = `medfusion-host-client:${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    holdLockForever(lock).then(
      () => {
        if (!closed) send({ v: HOST_PROTOCOL_VERSION, type: 'hello', lock });
      },
      () => {}, // no lock: the page keeps our workers until we terminate them or it closes
    );
  }
  const client: WorkerHostClient = {
    spawn(name) {
      nonEmptyString('name', name);
      if (closed) throw new ClosedError('WorkerHostClient');
      const id = ++seq;
      const channel = new MessageChannel();
      const handle = new HostedWorker(channel.port1, () => {
        handles.delete(id);
        if (!closed) send({ v: HOST_PROTOCOL_VERSION, type: 'terminate', id });
      });
      handles.set(id, handle);
      send({ v: HOST_PROTOCOL_VERSION, type: 'spawn', id, name, port: channel.port2 }, [
        channel.port2,
      ]);
      return handle as unknown as Worker;
    },
    offers: async (name) => {
      // The page posts its offer before it hands the port out: it is here at once, unless
      // the host was closed first; then nothing is offered.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<string[]>((resolve) => {
        timer = setTimeout(() => resolve([]), OFFER_WAIT_MS);
      });
      const offered = await Promise.race([names, late]).finally(() => clearTimeout(timer));
      return !closed && offered.includes(name);
    },
    close() {
      if (closed) return;
      for (const handle of [...handles.values()]) handle.terminate();
      closed = true;
      offered?.([]);
      port.close();
      if (scopeHost === client) scopeHost = undefined;
    },
  };
  scopeHost = client;
  if (signal?.aborted) client.close();
  else signal?.addEventListener('abort', () => client.close(), { once: true });
  return client;
}

/** The thread's side of one worker the page started: its channel's port, shaped as a `Worker`. */
class HostedWorker extends EventTarget {
  private gone = false;

  constructor(
    private readonly port: MessagePort,
    private readonly onTerminate: () => void,
  ) {
    super();
  }

  /** Post to the worker over this handle's channel. */
  postMessage(message: unknown, transfer: Transferable[] | StructuredSerializeOptions = []): void {
    this.port.postMessage(message, transfer as Transferable[]);
  }

  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (listener === null) return;
    if (type === 'message' || type === 'messageerror') {
      this.port.addEventListener(type, listener, options);
      this.port.start();
    } else super.addEventListener(type, listener, options);
  }

  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void {
    if (listener === null) return;
    if (type === 'message' || type === 'messageerror') {
      this.port.removeEventListener(type, listener, options);
    } else super.removeEventListener(type, listener, options);
  }

  /** The page could not start the worker, or it threw: an `error` event, as a Worker's. */
  failed(message: string): void {
    if (this.gone) return;
    this.dispatchEvent(new ErrorEvent('error', { message, cancelable: true }));
  }

  /** Ask the page to terminate the worker; this handle's channel closes at once. */
  terminate(): void {
    if (this.gone) return;
    this.gone = true;
    this.port.close();
    this.onTerminate();
  }
}
