/// <reference lib="webworker" />
// The OPFS store's flush thread: started by the OPFS worker (opfs.worker.ts)
// so its group commit's fsync runs here while that worker goes on writing.
// Each job names a segment file by its handle; this thread opens its own
// 'readwrite-unsafe' sync handle on it, flushes (an fsync of the file, whoever
// wrote the bytes) and closes it again, so the file can be evicted after.
// Messages and errors: opfsProtocol.ts (an error crosses as its own class).

import { serializeError } from '@medfusion/core/internal';
import {
  type FlushJob,
  type FlushReply,
  OPFS_PROTOCOL_VERSION,
  opfsMessage,
} from './opfsProtocol.js';

type SyncCapable = FileSystemFileHandle & {
  createSyncAccessHandle(options?: { mode?: string }): Promise<{ flush(): void; close(): void }>;
};

/** Bytes the files of `dir` hold (what a browser charges the origin's quota for). */
async function dirBytes(dir: FileSystemDirectoryHandle): Promise<number> {
  let bytes = 0;
  const entries = (dir as unknown as { values(): AsyncIterable<FileSystemHandle> }).values();
  for await (const h of entries) {
    if (h.kind === 'file') bytes += (await (h as FileSystemFileHandle).getFile()).size;
  }
  return bytes;
}

async function flush(job: FlushJob): Promise<void> {
  if (job.quota && (await dirBytes(job.quota.dir)) > job.quota.bytes) {
    throw new DOMException('simulated quota exceeded (flush thread)', 'QuotaExceededError');
  }
  const h = await (job.file as SyncCapable).createSyncAccessHandle({ mode: 'readwrite-unsafe' });
  try {
    h.flush();
  } finally {
    h.close();
  }
}

self.onmessage = async (ev: MessageEvent<unknown>) => {
  const job = opfsMessage<FlushJob>(ev.data);
  if (job?.type !== 'flush') {
    // Not a job of this protocol version: the OPFS worker treats the thread as failed.
    throw new Error('the OPFS flush thread got a message of another protocol version');
  }
  const v = OPFS_PROTOCOL_VERSION;
  try {
    await flush(job);
    self.postMessage({ v, type: 'flushed', id: job.id } satisfies FlushReply);
  } catch (err) {
    self.postMessage({
      v,
      type: 'error',
      id: job.id,
      error: serializeError(err),
    } satisfies FlushReply);
  }
};
