// The store bench's raw OPFS references: `raw-handle` (the ceiling, served to the page) and
// `raw-disk-only` (the same handle timed inside its worker), and the worker they talk to.
import { type Competitor, kvCompetitor } from './competitor.js';
import type { RawReply, RawRequest } from './rawHandle.worker.js';
import type { ServeReply, ServeRequest } from './rawServe.worker.js';

/** Ask the raw-handle worker; resolves with its reply. */
export function ask(worker: Worker, req: RawRequest): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (ev: MessageEvent<RawReply>) =>
      'error' in ev.data ? reject(new Error(ev.data.error)) : resolve(ev.data);
    worker.postMessage(req);
  });
}

/** A new worker of bench/store/rawHandle.worker.ts (one raw SyncAccessHandle). */
export const rawWorker = () =>
  new Worker(new URL('./rawHandle.worker.ts', import.meta.url), { type: 'module' });

/**
 * The disk alone: one raw SyncAccessHandle in a worker, timed inside the
 * worker, nothing delivered to the page. Writes: sequential, one write call
 * per record, flushed as often as OpfsStore's default group commit flushes
 * (every 100 ms). Reads: one read per sample into a fresh buffer. Shown for
 * reference; the ceiling the stores are compared with is {@link rawServeCompetitor}.
 */
export function rawDiskCompetitor(): Competitor {
  const worker = rawWorker();
  const ms = async (req: RawRequest) => {
    const r = await ask(worker, req);
    return 'ms' in r ? r.ms : Number.NaN;
  };
  return {
    name: 'raw-disk-only',
    reset: async () => {},
    putAll: (count, bytes) => ms({ op: 'write', count, bytes, flushEveryMs: 100 }),
    readAll: (order, bytes) => ms({ op: 'read', order, bytes }),
    dispose: async () => {
      await ms({ op: 'close' });
      worker.terminate();
    },
  };
}

/**
 * The ceiling: the same operations as the stores (same keys, sizes, count and
 * ops in flight, every value delivered to and checked on the page), served by
 * one raw SyncAccessHandle in a worker with the least work a store can do (see
 * rawServe.worker.ts): an append log with a Map index on the page, no
 * checksum, no lock. Puts of one turn travel packed in one transferred buffer
 * (reused), gets one message each with the bytes transferred back.
 */
export function rawServeCompetitor(): Competitor {
  const worker = new Worker(new URL('./rawServe.worker.ts', import.meta.url), { type: 'module' });
  const waiting = new Map<number, (r: ServeReply) => void>();
  let nextId = 1;
  worker.onmessage = (ev: MessageEvent<ServeReply>) => {
    const done = waiting.get(ev.data.id);
    waiting.delete(ev.data.id);
    done?.(ev.data);
  };
  const send = (req: ServeRequest, transfer: Transferable[] = []) =>
    new Promise<ServeReply>((resolve, reject) => {
      const id = 'id' in req ? req.id : 0;
      waiting.set(id, (r) => ('error' in r ? reject(new Error(r.error)) : resolve(r)));
      worker.postMessage(req, transfer);
    });
  const where = new Map<string, [number, number]>();
  let end = 0;
  let spare: ArrayBuffer | undefined;
  let queued: { key: string; value: Uint8Array; done: () => void; fail: (e: unknown) => void }[] =
    [];
  const sendPuts = () => {
    const batch = queued;
    queued = [];
    let len = 0;
    for (const w of batch) len += w.value.byteLength;
    const buf =
      spare && spare.byteLength >= len ? new Uint8Array(spare, 0, len) : new Uint8Array(len);
    spare = undefined;
    let o = 0;
    for (const w of batch) {
      buf.set(w.value, o);
      where.set(w.key, [end + o, w.value.byteLength]);
      o += w.value.byteLength;
    }
    const at = end;
    end += len;
    const id = nextId++;
    send({ op: 'put', id, at, batch: buf }, [buf.buffer]).then(
      (r) => {
        if ('batch' in r) spare = r.batch.buffer as ArrayBuffer;
        for (const w of batch) w.done();
      },
      (err) => {
        for (const w of batch) w.fail(err);
      },
    );
  };
  const ready = send({ op: 'open' });
  return kvCompetitor(
    'raw-handle',
    (key, value) =>
      new Promise<void>((done, fail) => {
        queued.push({ key, value, done, fail });
        if (queued.length === 1) queueMicrotask(sendPuts);
      }),
    async (key) => {
      const w = where.get(key);
      if (!w) return undefined;
      const r = await send({ op: 'get', id: nextId++, at: w[0], len: w[1] });
      return 'bytes' in r ? r.bytes : undefined;
    },
    async () => {
      await ready;
      where.clear();
      end = 0;
      await send({ op: 'reset' });
    },
    async () => {
      await send({ op: 'close' });
      worker.terminate();
    },
  );
}
