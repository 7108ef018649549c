/**
 * The private messages between {@link createWorkerHost} (the page) and
 * `connectWorkerHost` (a thread asking it for workers), and the one message
 * the page sends a worker it started for them. Both ends ship together.
 */

/** Bumped whenever a message below changes shape. */
export const HOST_PROTOCOL_VERSION = 1;

/** The key of the message that hands a started worker its end of the asking thread's channel. */
export const WORKER_CONNECT = 'medfusion-worker-connect';

/** What a connected thread asks of the host. */
export type HostRequest =
  | {
      v: number;
      /** Start worker `name`; `port` is the worker's end of the thread's channel to it. */
      type: 'spawn';
      id: number;
      name: string;
      port: MessagePort;
    }
  | { v: number; type: 'terminate'; id: number }
  | {
      v: number;
      /** The thread holds Web Lock `lock` for its life: when it is free, its workers go. */
      type: 'hello';
      lock: string;
    };

/** What the host tells a connected thread about one of its workers. */
export type HostReply =
  | { v: number; type: 'offer'; names: string[] }
  | { v: number; type: 'error'; id: number; message: string }
  | { v: number; type: 'messageerror'; id: number };

/** `data` as a message of this protocol version, or undefined. */
export function hostMessage<M extends { v: number }>(data: unknown): M | undefined {
  const m = data as Partial<M> | null;
  return typeof m === 'object' && m !== null && m.v === HOST_PROTOCOL_VERSION
    ? (m as M)
    : undefined;
}

/**
 * Worker side: call `serve` with each port a worker host hands this worker
 * (the asking thread's end of its channel), for as long as the worker lives.
 */
export function acceptHandedPorts(serve: (port: MessagePort) => void): void {
  const scope = globalThis as unknown as Partial<Pick<Worker, 'addEventListener'>>;
  scope.addEventListener?.('message', (event: MessageEvent<unknown>) => {
    const data = event.data as { [WORKER_CONNECT]?: unknown; port?: unknown } | null;
    if (
      typeof data === 'object' &&
      data !== null &&
      data[WORKER_CONNECT] === HOST_PROTOCOL_VERSION &&
      data.port instanceof MessagePort
    ) {
      serve(data.port);
    }
  });
}
