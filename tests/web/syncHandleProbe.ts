// What this browser's platform says about OPFS sync access handles, asked directly (a dedicated
// worker of its own, none of our code): the truth the OpfsStore backend choice is checked against.

/**
 * `offered`: the method exists; `opens`: a handle on a fresh file opened; `error`: why not;
 * `shareable`: handles honour `mode: 'readwrite-unsafe'` (several open on one file at once).
 */
export interface SyncHandleProbe {
  offered: boolean;
  opens: boolean;
  shareable: boolean;
  error?: string;
}

const source = `
onmessage = async () => {
  const shareable = typeof FileSystemSyncAccessHandle !== 'undefined' && 'mode' in FileSystemSyncAccessHandle.prototype;
  const root = await navigator.storage.getDirectory();
  const name = 'test-sync-probe-' + Math.random().toString(36).slice(2);
  const fh = await root.getFileHandle(name, { create: true });
  try {
    if (!('createSyncAccessHandle' in fh)) return postMessage({ offered: false, opens: false, shareable });
    const h = await fh.createSyncAccessHandle();
    h.close();
    postMessage({ offered: true, opens: true, shareable });
  } catch (e) {
    postMessage({ offered: true, opens: false, shareable, error: e.name + ': ' + e.message });
  } finally {
    await root.removeEntry(name).catch(() => {});
  }
};`;

/** Opens one sync access handle in a throwaway dedicated worker. */
export async function probeSyncHandles(): Promise<SyncHandleProbe> {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker = new Worker(url);
  try {
    return await new Promise<SyncHandleProbe>((resolve, reject) => {
      worker.onmessage = (ev: MessageEvent<SyncHandleProbe>) => resolve(ev.data);
      worker.onerror = (ev) => reject(new Error(`probe worker failed: ${ev.message}`));
      worker.postMessage(null);
    });
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}
