/// <reference lib="webworker" />
// Bench only: the ceiling as the page sees it. One raw OPFS SyncAccessHandle in
// a dedicated worker, serving the page's puts and gets with the least work a
// store can do: no index, no checksum, no lock. Gets: one message per read,
// read into a fresh buffer that moves to the page (transferred). Puts: the
// values of one turn arrive packed in one transferred buffer (as OpfsStore
// sends them), are written with one sequential write, flushed once 100 ms
// passed since the last flush (OpfsStore's default group commit), and the
// buffer moves back for the next batch.

import type { SyncHandle } from './syncHandle.js';

/** A request to the serving worker; `id` comes back in the answer. */
export type ServeRequest =
  | { op: 'open' }
  | { op: 'reset' }
  | { op: 'get'; id: number; at: number; len: number }
  | { op: 'put'; id: number; at: number; batch: Uint8Array }
  | { op: 'close' };

/** Its answer: a read's bytes, a put batch's buffer back, or done. */
export type ServeReply =
  | { id: number; bytes: Uint8Array }
  | { id: number; batch: Uint8Array }
  | { id: number; done: true }
  | { id: number; error: string };

const FILE = 'bench-raw-serve.bin';
let handle: SyncHandle | undefined;
let flushed = 0;

async function open(): Promise<SyncHandle> {
  if (handle) return handle;
  const root = await navigator.storage.getDirectory();
  const fh = (await root.getFileHandle(FILE, { create: true })) as FileSystemFileHandle & {
    createSyncAccessHandle(): Promise<SyncHandle>;
  };
  handle = await fh.createSyncAccessHandle();
  flushed = performance.now();
  return handle;
}

self.onmessage = async (ev: MessageEvent<ServeRequest>) => {
  const m = ev.data;
  try {
    if (m.op === 'get') {
      const bytes = new Uint8Array(m.len);
      handle!.read(bytes, { at: m.at });
      self.postMessage({ id: m.id, bytes } satisfies ServeReply, [bytes.buffer]);
    } else if (m.op === 'put') {
      const h = handle!;
      h.write(m.batch, { at: m.at });
      const now = performance.now();
      if (now - flushed >= 100) {
        h.flush();
        flushed = performance.now();
      }
      self.postMessage({ id: m.id, batch: m.batch } satisfies ServeReply, [m.batch.buffer]);
    } else if (m.op === 'open') {
      await open();
      self.postMessage({ id: 0, done: true } satisfies ServeReply);
    } else if (m.op === 'reset') {
      const h = await open();
      h.truncate(0);
      h.flush();
      self.postMessage({ id: 0, done: true } satisfies ServeReply);
    } else {
      handle?.close();
      handle = undefined;
      const root = await navigator.storage.getDirectory();
      await root.removeEntry(FILE).catch(() => {});
      self.postMessage({ id: 0, done: true } satisfies ServeReply);
    }
  } catch (err) {
    self.postMessage({ id: 'id' in m ? m.id : 0, error: String(err) } satisfies ServeReply);
  }
};
