import { type FileBackend, isNotFound, listFiles, type OpfsFile, removeFile } from './opfsFiles.js';
import { ReadWriteGate } from './ReadWriteGate.js';

interface WritableLike {
  write(
    cmd: { type: 'write'; position: number; data: Uint8Array } | { type: 'truncate'; size: number },
  ): Promise<void>;
  close(): Promise<void>;
  abort(): Promise<void>;
}

class AsyncOpfsFile implements OpfsFile {
  constructor(
    private readonly handle: FileSystemFileHandle,
    /** Shared by every AsyncOpfsFile of this file in the backend. */
    private readonly gate: ReadWriteGate,
  ) {}

  size(): Promise<number> {
    return this.gate.read(async () => (await this.handle.getFile()).size);
  }

  read(at: number, length: number): Promise<Uint8Array> {
    return this.gate.read(async () => {
      const file = await this.handle.getFile();
      return new Uint8Array(await file.slice(at, at + length).arrayBuffer());
    });
  }

  private edit(cmd: Parameters<WritableLike['write']>[0]): Promise<void> {
    return this.gate.edit(async () => {
      const w = (await (
        this.handle as unknown as {
          createWritable(o: { keepExistingData: boolean }): Promise<WritableLike>;
        }
      ).createWritable({ keepExistingData: true })) as WritableLike;
      try {
        await w.write(cmd);
      } catch (err) {
        await w.abort().catch(() => {});
        throw err;
      }
      // close() commits the swap file atomically: a crash leaves the old bytes.
      await w.close();
    });
  }

  write(at: number, data: Uint8Array): Promise<void> {
    // WebKit (2.50) writes a view's whole ArrayBuffer, not its byteOffset/byteLength window:
    // a part of a batch is copied out first (the batch's other records would land on disk too).
    const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
    return this.edit({ type: 'write', position: at, data: whole ? data : data.slice() });
  }

  truncate(size: number): Promise<void> {
    return this.edit({ type: 'truncate', size });
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

/**
 * The OPFS backend for browsers without `createSyncAccessHandle`: reads
 * through `getFile()`, writes through `createWritable()` (each write commits
 * atomically on close), never a read of a file during a write of it (see
 * ReadWriteGate). Slower than sync handles, same on-disk format.
 */
export function asyncBackend(dir: FileSystemDirectoryHandle): FileBackend {
  const gates = new Map<string, ReadWriteGate>();
  return {
    kind: 'async',
    async open(name, create) {
      try {
        const handle = await dir.getFileHandle(name, { create });
        const gate = gates.get(name) ?? new ReadWriteGate();
        gates.set(name, gate);
        return new AsyncOpfsFile(handle, gate);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    remove: (name) => {
      gates.delete(name);
      return removeFile(dir, name);
    },
    list: () => listFiles(dir),
  };
}

/** True when this context offers sync access handles (dedicated workers in modern browsers). */
export function hasSyncAccessHandles(): boolean {
  const proto = (globalThis as { FileSystemFileHandle?: { prototype: object } })
    .FileSystemFileHandle?.prototype;
  return !!proto && 'createSyncAccessHandle' in proto;
}

let syncProbe: Promise<boolean> | undefined;

/**
 * True when sync access handles work here: offered, and one opens on a fresh
 * probe file in the OPFS root (removed at once). Offered is not enough:
 * WebKitGTK has `createSyncAccessHandle` but rejects every call with
 * `NotSupportedError` ("Backend does not support this operation"); there the
 * async path is the one that works. Any other failure of the probe leaves the
 * choice to the method's presence, as before. Asked once per worker.
 */
export function syncAccessHandlesWork(): Promise<boolean> {
  if (!hasSyncAccessHandles()) return Promise.resolve(false);
  syncProbe ??= probeSyncAccessHandle();
  return syncProbe;
}

async function probeSyncAccessHandle(): Promise<boolean> {
  const name = `.medfusion-sync-probe-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  let root: FileSystemDirectoryHandle;
  let fh: FileSystemFileHandle;
  try {
    root = await navigator.storage.getDirectory();
    fh = await root.getFileHandle(name, { create: true });
  } catch {
    return true;
  }
  try {
    const open = (fh as unknown as { createSyncAccessHandle(): Promise<{ close(): void }> })
      .createSyncAccessHandle;
    (await open.call(fh)).close();
    return true;
  } catch (err) {
    return (err as { name?: unknown } | null)?.name !== 'NotSupportedError';
  } finally {
    await removeFile(root, name);
  }
}
