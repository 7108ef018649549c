/// <reference lib="webworker" />
// The OPFS store's dedicated worker: owns the segment files through
// createSyncAccessHandle (only offered in dedicated workers) and serves
// OpfsStore's calls over comlink (OpfsHost). Falls back to the async File
// System API when sync handles are missing or do not open (WebKitGTK). Its
// group commits' fsyncs run on a flush thread of its own (opfsFlush.worker.ts),
// so writes go on meanwhile. Where sync handles are exclusive (no
// 'readwrite-unsafe': Firefox), a store holds them only while it holds the
// writer lock (opfsLeasedSyncBackend.ts).

import * as Comlink from 'comlink';
import { acceptHandedPorts } from '../../workers/workerHostProtocol.js';
import { asyncBackend, syncAccessHandlesWork } from './opfsAsyncFallback.js';
import { type FileBackend, isNotFound, listFiles, type OpfsFile, removeFile } from './opfsFiles.js';
import { FlushAside } from './opfsFlushAside.js';
import { OpfsHost } from './opfsHost.js';
import {
  leasedSyncBackend,
  type SyncCapable,
  type SyncHandle,
  syncHandlesShareable,
} from './opfsLeasedSyncBackend.js';
import type { FlushJob } from './opfsProtocol.js';

class SyncOpfsFile implements OpfsFile {
  constructor(
    private readonly h: SyncHandle,
    private readonly fh: FileSystemFileHandle,
    private readonly aside: FlushAside,
    private readonly quota: FlushJob['quota'],
  ) {}
  async size(): Promise<number> {
    return this.h.getSize();
  }
  async read(at: number, length: number): Promise<Uint8Array> {
    return this.readSync(at, length);
  }
  /** Reads straight into a fresh buffer that the reply transfers (no copy, no slice), or into `into`. */
  readSync(at: number, length: number, into?: Uint8Array): Uint8Array {
    const buf = into ? into.subarray(0, length) : new Uint8Array(length);
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
  /** An fsync on the flush thread (its own handle on the file); here when there is none. */
  async flushAside(): Promise<boolean> {
    if (await this.aside.flush(this.fh, this.quota)) return true;
    this.h.flush();
    return false;
  }
  async close(): Promise<void> {
    this.h.close();
  }
}

/** One flush thread for the worker's life, started at the first group commit. */
const aside = new FlushAside();

function syncBackend(dir: FileSystemDirectoryHandle, quotaBytes: number | undefined): FileBackend {
  const quota = quotaBytes === undefined ? undefined : { bytes: quotaBytes, dir };
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
      return new SyncOpfsFile(
        await (fh as SyncCapable).createSyncAccessHandle({ mode: 'readwrite-unsafe' }),
        fh,
        aside,
        quota,
      );
    },
    remove: (name) => removeFile(dir, name),
    list: () => listFiles(dir),
  };
}

const host = new OpfsHost(async (dir, kind, quotaBytes) =>
  kind === 'async' || !(await syncAccessHandlesWork())
    ? asyncBackend(dir)
    : kind !== 'exclusive' && syncHandlesShareable()
      ? syncBackend(dir, quotaBytes)
      : leasedSyncBackend(dir),
);
Comlink.expose(host, self as unknown as Comlink.Endpoint);
// Started by a WorkerHost for a store in another worker (OPFS_STORE_WORKER): serve it on its port.
acceptHandedPorts((port) => Comlink.expose(host, port));
