/// <reference lib="webworker" />
// The OPFS store's dedicated worker: owns the shard files through
// createSyncAccessHandle (only offered in dedicated workers) and serves
// OpfsStore's requests. Falls back to the async File System API when sync
// handles are missing.

import { serializeError } from '../storeErrors.js';
import { asyncBackend, hasSyncAccessHandles } from './opfsAsyncFallback.js';
import {
  type FileBackend,
  isNotFound,
  listFiles,
  removeFile,
  type ShardFile,
} from './opfsFiles.js';
import { createOpfsHost, type OpfsRequest, type OpfsResponse } from './opfsHost.js';

interface SyncHandle {
  read(buffer: Uint8Array, options?: { at: number }): number;
  write(buffer: Uint8Array, options?: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

class SyncShardFile implements ShardFile {
  constructor(private readonly h: SyncHandle) {}
  async size(): Promise<number> {
    return this.h.getSize();
  }
  async read(at: number, length: number): Promise<Uint8Array> {
    return this.readSync(at, length);
  }
  /** Reads straight into a fresh buffer that the reply transfers (no copy, no slice). */
  readSync(at: number, length: number): Uint8Array {
    const buf = new Uint8Array(length);
    const n = this.h.read(buf, { at });
    return n === length ? buf : buf.subarray(0, n);
  }
  async write(at: number, data: Uint8Array): Promise<void> {
    const n = this.h.write(data, { at });
    if (n !== data.length) throw new Error(`short write: ${n} of ${data.length} bytes`);
  }
  async truncate(size: number): Promise<void> {
    this.h.truncate(size);
  }
  async flush(): Promise<void> {
    this.h.flush();
  }
  async close(): Promise<void> {
    this.h.close();
  }
}

type SyncCapable = FileSystemFileHandle & {
  createSyncAccessHandle(options?: { mode?: string }): Promise<SyncHandle>;
};

function syncBackend(dir: FileSystemDirectoryHandle): FileBackend {
  return {
    kind: 'sync',
    async open(name, create) {
      let fh: FileSystemFileHandle;
      try {
        fh = await dir.getFileHandle(name, { create });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
      // 'readwrite-unsafe' lets several stores (tabs) keep handles on one
      // file; writers serialize through a Web Lock instead.
      return new SyncShardFile(
        await (fh as SyncCapable).createSyncAccessHandle({ mode: 'readwrite-unsafe' }),
      );
    },
    remove: (name) => removeFile(dir, name),
    list: () => listFiles(dir),
  };
}

const host = createOpfsHost((dir, kind) =>
  kind === 'async' || !hasSyncAccessHandles() ? asyncBackend(dir) : syncBackend(dir),
);
const scope = self as unknown as DedicatedWorkerGlobalScope;
let chain: Promise<void> = Promise.resolve();

function reply(res: OpfsResponse, transfer: Transferable[]): void {
  try {
    scope.postMessage(res, transfer);
  } catch (err) {
    // Never leave a call unanswered: report the failure instead.
    scope.postMessage({ id: res.id, ok: false, error: serializeError(err) } satisfies OpfsResponse);
  }
}

scope.onmessage = (ev: MessageEvent<OpfsRequest>) => {
  const req = ev.data;
  const run = async () => {
    const { res, transfer } = await host.handle(req);
    reply(res, transfer);
  };
  // Reads run at once (checksums guard them); writes, opens and closes keep their order.
  if (req.op === 'getMany' || req.op === 'has' || req.op === 'usage' || req.op === 'keys') {
    void run();
  } else {
    chain = chain.then(run);
  }
};
