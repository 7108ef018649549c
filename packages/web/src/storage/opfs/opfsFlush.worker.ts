/// <reference lib="webworker" />
// The OPFS store's flush thread: started by the OPFS worker (opfs.worker.ts)
// so its group commit's fsync runs here while that worker goes on writing.
// Each job names a segment file by its handle; this thread opens its own
// 'readwrite-unsafe' sync handle on it, flushes (an fsync of the file, whoever
// wrote the bytes) and closes it again, so the file can be evicted after.

import type { FlushJob, FlushReply } from './opfsFlushAside.js';

type SyncCapable = FileSystemFileHandle & {
  createSyncAccessHandle(options?: { mode?: string }): Promise<{ flush(): void; close(): void }>;
};

self.onmessage = async (ev: MessageEvent<FlushJob>) => {
  const { id, file } = ev.data;
  try {
    const h = await (file as SyncCapable).createSyncAccessHandle({ mode: 'readwrite-unsafe' });
    try {
      h.flush();
    } finally {
      h.close();
    }
    self.postMessage({ id } satisfies FlushReply);
  } catch (err) {
    self.postMessage({ id, error: String(err) } satisfies FlushReply);
  }
};
