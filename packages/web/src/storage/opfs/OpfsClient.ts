import { deserializeError } from '@medfusion/core/internal';
import * as Comlink from 'comlink';
import { watchLock } from '../../workers/workerLiveness.js';
import { StoreError } from '../storeErrors.js';
import {
  OPFS_PROTOCOL_VERSION,
  type OpfsHostApi,
  type OpfsOpenArgs,
  type OpfsReadReply,
  type OpfsReadRequest,
  type OpfsReply,
  opfsMessage,
} from './opfsProtocol.js';
import { startStoreWorker } from './opfsStoreWorker.js';

/**
 * Told each value of a read batch as it arrives: `sum` is the checksum its
 * bytes must have before anyone trusts them, -1 when the host verified them.
 */
export type ReadEach = (i: number, value: Uint8Array | undefined, sum: number) => void;

interface Reading {
  left: number;
  readonly each: ReadEach;
  readonly settle: (reply: OpfsReply<void>) => void;
}

interface Pending {
  readonly reject: (e: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The page side of the OPFS store's RPC: starts the OPFS worker (or a host on
 * this thread), calls it through comlink with a time bound per call, learns of
 * its death (error events, and a Web Lock the worker holds for its life) and
 * then rejects every pending call, rebuilding errors as their own class.
 * Owns the worker; {@link OpfsClient.stop} frees all it started. Internal: use
 * {@link OpfsStore}.
 */
export class OpfsClient {
  private worker: Worker | undefined;
  private remote: Comlink.Remote<OpfsHostApi> | undefined;
  private api: OpfsHostApi | undefined;
  private readonly pending = new Set<Pending>();
  private readonly watch = new AbortController();
  private idleWaiters: (() => void)[] = [];
  private goneError: Error | undefined;
  /** The port reads travel on (worker only), and the batches awaiting values. */
  private readPort: MessagePort | undefined;
  private readonly reading = new Map<number, Reading>();
  private readSeq = 0;

  /**
   * @param dir the store's directory (for messages)
   * @param callTimeoutMs longest wait for one call
   * @param onGone told once when the host can no longer answer
   */
  constructor(
    private readonly dir: string,
    private readonly callTimeoutMs: number,
    private readonly onGone: (err: Error) => void,
  ) {}

  /** Why the host cannot answer any more, once it cannot. */
  get gone(): Error | undefined {
    return this.goneError;
  }

  /** Start the host (in a worker when `useWorker` and workers exist) and open the engine. */
  async start(useWorker: boolean, args: OpfsOpenArgs): Promise<void> {
    let aliveLock: string | null = null;
    if (useWorker && typeof Worker === 'function') {
      const worker = await startStoreWorker();
      worker.addEventListener('error', (ev) => {
        ev.preventDefault?.();
        this.fail(
          new StoreError('STORE_WORKER_GONE', `the OPFS worker failed: ${ev.message ?? 'error'}`),
        );
      });
      worker.addEventListener('messageerror', () => {
        this.fail(new StoreError('STORE_WORKER_GONE', 'a reply of the OPFS worker was unreadable'));
      });
      const remote = Comlink.wrap<OpfsHostApi>(worker);
      this.worker = worker;
      this.remote = remote;
      // Method proxies made once (each property read of a comlink proxy makes a new one).
      this.api = {
        open: remote.open,
        getMany: remote.getMany,
        purge: remote.purge,
        has: remote.has,
        delete: remote.delete,
        write: remote.write,
        flush: remote.flush,
        keys: remote.keys,
        clear: remote.clear,
        usage: remote.usage,
        persistIndex: remote.persistIndex,
        close: remote.close,
      } as OpfsHostApi;
      if (typeof navigator !== 'undefined' && navigator.locks) {
        aliveLock = `medfusion-opfs-alive:${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
      }
    } else {
      const { OpfsHost } = await import('./opfsHost.js');
      this.api = new OpfsHost();
    }
    let hostPort: MessagePort | null = null;
    if (this.worker) {
      const channel = new MessageChannel();
      this.readPort = channel.port1;
      hostPort = channel.port2;
      this.readPort.onmessage = (ev: MessageEvent<unknown>) => this.onRead(ev.data);
    }
    await this.call('open', (api) =>
      api.open(args, aliveLock, hostPort && Comlink.transfer(hostPort, [hostPort])),
    );
    if (aliveLock !== null) {
      watchLock(aliveLock, this.watch.signal, () =>
        this.fail(new StoreError('STORE_WORKER_GONE', 'the OPFS worker exited')),
      );
    }
  }

  /**
   * Call the host; settles with its value, its error (rebuilt as its own
   * class), StoreError `STORE_TIMEOUT` past `callTimeoutMs`, or the reason the
   * host is gone.
   */
  call<T>(op: string, invoke: (api: OpfsHostApi) => Promise<OpfsReply<T>>): Promise<T> {
    if (this.goneError) return Promise.reject(this.goneError);
    const api = this.api;
    if (!api) return Promise.reject(new StoreError('STORE_FAILED', 'the OPFS store is not open'));
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { reject, timer: undefined };
      p.timer = setTimeout(() => {
        if (!this.done(p)) return;
        reject(
          new StoreError(
            'STORE_TIMEOUT',
            `OpfsStore ${op} on ${JSON.stringify(this.dir)} did not settle within ${this.callTimeoutMs} ms`,
          ),
        );
      }, this.callTimeoutMs);
      this.pending.add(p);
      invoke(api).then(
        (reply) => {
          if (!this.done(p)) return;
          clearTimeout(p.timer);
          if (reply.ok) resolve(reply.value);
          else reject(deserializeError(reply.error));
        },
        (err: unknown) => {
          if (!this.done(p)) return;
          clearTimeout(p.timer);
          reject(err);
        },
      );
    });
  }

  /**
   * Read `keys`, telling `each` every value as soon as it arrives (the host
   * reads the next one meanwhile); settles like {@link call} once all came.
   */
  read(keys: string[], minTime: number, each: ReadEach): Promise<void> {
    const port = this.readPort;
    if (!port) {
      return this.call('getMany', (api) => api.getMany(keys, minTime)).then((values) => {
        for (let i = 0; i < values.length; i++) each(i, values[i], -1);
      });
    }
    const id = ++this.readSeq;
    const done = this.call(
      'getMany',
      () =>
        new Promise<OpfsReply<void>>((settle) => {
          this.reading.set(id, { left: keys.length, each, settle });
          const req: OpfsReadRequest = {
            v: OPFS_PROTOCOL_VERSION,
            type: 'read',
            id,
            keys,
            minTime,
          };
          port.postMessage(req);
        }),
    );
    // Timed out or gone: values that still arrive for this batch go nowhere.
    done.catch(() => this.reading.delete(id));
    return done;
  }

  private onRead(data: unknown): void {
    const reply = opfsMessage<OpfsReadReply>(data);
    if (!reply) {
      this.fail(
        new StoreError('STORE_WORKER_GONE', 'the OPFS worker answered in another protocol version'),
      );
      return;
    }
    const r = this.reading.get(reply.id);
    if (!r) return;
    if (reply.type === 'error') {
      this.reading.delete(reply.id);
      r.settle({ ok: false, error: reply.error });
      return;
    }
    for (let n = 0; n < reply.i.length; n++) r.each(reply.i[n]!, reply.values[n], reply.sums[n]!);
    r.left -= reply.i.length;
    if (r.left === 0) {
      this.reading.delete(reply.id);
      r.settle({ ok: true, value: undefined });
    }
  }

  /** Resolves once no call is pending (each is bounded by `callTimeoutMs`). */
  idle(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forget `p`; false when it had already settled. */
  private done(p: Pending): boolean {
    if (!this.pending.delete(p)) return false;
    if (this.pending.size === 0 && this.idleWaiters.length > 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
    return true;
  }

  /** Reject every pending and later call with `err`; tell the owner once. */
  fail(err: Error): void {
    if (this.goneError) return;
    this.goneError = err;
    for (const p of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.reading.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.onGone(err);
  }

  /** Stop watching, release the proxy, terminate the worker and fail what is pending with `err`. */
  stop(err: Error): void {
    this.watch.abort();
    if (this.remote) {
      try {
        this.remote[Comlink.releaseProxy]();
      } catch {
        // already released
      }
      this.remote = undefined;
    }
    this.worker?.terminate();
    this.worker = undefined;
    this.readPort?.close();
    this.readPort = undefined;
    this.fail(err);
  }
}
