import { type SerializedError, StoreError, serializeError } from '../storeErrors.js';
import { withWebLock } from '../webLocks.js';
import { asyncBackend } from './opfsAsyncFallback.js';
import { type FileBackend, openDirectory } from './opfsFiles.js';
import { OpfsShardEngine } from './opfsShardEngine.js';

/** What OpfsStore sends to open the engine. Internal. */
export interface OpfsOpenArgs {
  dir: string;
  maxBytes: number;
  shardBytes: number;
  quotaBytes?: number;
  snapshotDelayMs: number;
  backend: 'auto' | 'sync' | 'async';
}

/** A request to the engine host. Internal. */
export type OpfsRequest =
  | { id: number; op: 'open'; args: OpfsOpenArgs }
  | { id: number; op: 'getMany'; keys: string[] }
  | { id: number; op: 'has' | 'delete'; key: string }
  | { id: number; op: 'write'; items: { key: string; value: Uint8Array | undefined }[] }
  | { id: number; op: 'keys' | 'clear' | 'usage' | 'close' | 'persistIndex' };

/** The host's answer. Internal. */
export type OpfsResponse =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError };

/** Builds a file backend for a directory; `preferSync` chooses sync handles when offered. */
export type BackendFactory = (
  dir: FileSystemDirectoryHandle,
  kind: 'auto' | 'sync' | 'async',
) => FileBackend;

/**
 * Serves {@link OpfsRequest}s with one shard engine, in the OPFS worker or,
 * where workers are missing, on the calling thread. Internal.
 */
export function createOpfsHost(makeBackend: BackendFactory = (d) => asyncBackend(d)) {
  let engine: OpfsShardEngine | undefined;
  let channel: BroadcastChannel | undefined;
  const self = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

  // `transfer` is per request: requests interleave at every await.
  async function run(req: OpfsRequest, transfer: Transferable[]): Promise<unknown> {
    if (req.op === 'open') {
      const a = req.args;
      const dir = await openDirectory(a.dir);
      const lockName = `medfusion-opfs:${a.dir}`;
      const e = new OpfsShardEngine(
        makeBackend(dir, a.backend),
        {
          maxBytes: a.maxBytes,
          shardBytes: a.shardBytes,
          snapshotDelayMs: a.snapshotDelayMs,
          ...(a.quotaBytes === undefined ? {} : { quotaBytes: a.quotaBytes }),
        },
        (fn) => withWebLock(lockName, fn),
      );
      await e.open();
      // Tell other stores (tabs, workers) on this directory when we write, so
      // they re-read the head before serving their next read.
      channel?.close();
      const ch =
        typeof BroadcastChannel === 'function' ? new BroadcastChannel(lockName) : undefined;
      if (ch) {
        ch.onmessage = (ev: MessageEvent<{ from: string }>) => {
          if (ev.data?.from !== self) e.markStale();
        };
        e.onChange = () => ch.postMessage({ from: self });
      }
      channel = ch;
      engine = e;
      return e.usage().then((u) => u.backend);
    }
    if (!engine) throw new StoreError('STORE_FAILED', 'the OPFS store is not open');
    switch (req.op) {
      case 'getMany': {
        // One reply for the whole batch; every value's buffer moves, none is copied.
        const values = await engine.getMany(req.keys);
        for (const v of values) {
          if (v && !transfer.includes(v.buffer as ArrayBuffer))
            transfer.push(v.buffer as ArrayBuffer);
        }
        return values;
      }
      case 'has':
        return engine.has(req.key);
      case 'delete': {
        const had = await engine.has(req.key);
        const [err] = await engine.writeBatch([{ key: req.key, value: undefined }]);
        if (err) throw err;
        return had;
      }
      case 'write':
        return (await engine.writeBatch(req.items)).map((e) =>
          e === undefined ? null : serializeError(e),
        );
      case 'keys':
        return engine.keys();
      case 'clear':
        return engine.clear();
      case 'usage':
        return engine.usage();
      case 'persistIndex':
        return engine.persistIndex();
      case 'close': {
        const e = engine;
        engine = undefined;
        channel?.close();
        channel = undefined;
        return e.close();
      }
    }
  }

  return {
    /** Handle one request; `transfer` lists buffers the reply may move. Never rejects. */
    async handle(req: OpfsRequest): Promise<{ res: OpfsResponse; transfer: Transferable[] }> {
      const transfer: Transferable[] = [];
      try {
        const value = await run(req, transfer);
        return { res: { id: req.id, ok: true, value }, transfer };
      } catch (err) {
        return { res: { id: req.id, ok: false, error: serializeError(err) }, transfer: [] };
      }
    },
  };
}
