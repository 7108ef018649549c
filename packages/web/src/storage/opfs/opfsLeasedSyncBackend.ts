import { type FileBackend, isNotFound, listFiles, type OpfsFile, removeFile } from './opfsFiles.js';

/** A sync access handle (FileSystemSyncAccessHandle), as the OPFS worker uses it. */
export interface SyncHandle {
  read(buffer: Uint8Array, options?: { at: number }): number;
  write(buffer: Uint8Array, options?: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

/** A file handle with `createSyncAccessHandle` (dedicated workers only). */
export type SyncCapable = FileSystemFileHandle & {
  createSyncAccessHandle(options?: { mode?: string }): Promise<SyncHandle>;
};

/**
 * True when sync access handles honour `mode: 'readwrite-unsafe'`, so several
 * handles (stores, tabs, the flush thread) can be open on one file at once.
 * An engine that implements the option exposes it as the handle's `mode`
 * attribute (Chromium); one without it (Firefox ESR 153) opens every handle
 * exclusively, and a second one fails with NoModificationAllowedError.
 */
export function syncHandlesShareable(): boolean {
  const proto = (globalThis as { FileSystemSyncAccessHandle?: { prototype: object } })
    .FileSystemSyncAccessHandle?.prototype;
  return !!proto && 'mode' in proto;
}

/**
 * A segment file over an exclusive sync handle that is held only while this
 * store writes: opened at the first write, flushed and closed when the store
 * lets go of the directory's writer lock (see {@link leasedSyncBackend}).
 * Reads go through the handle while it is held, else through `getFile()`,
 * which an exclusive handle elsewhere does not block.
 */
class LeasedSyncFile implements OpfsFile {
  private h: SyncHandle | undefined;
  private opening: Promise<SyncHandle> | undefined;

  constructor(
    private readonly fh: FileSystemFileHandle,
    private readonly held: Set<LeasedSyncFile>,
  ) {}

  private handle(): Promise<SyncHandle> {
    if (this.h) return Promise.resolve(this.h);
    this.opening ??= (this.fh as SyncCapable)
      .createSyncAccessHandle()
      .then((h) => {
        this.h = h;
        this.held.add(this);
        return h;
      })
      .finally(() => {
        this.opening = undefined;
      });
    return this.opening;
  }

  async size(): Promise<number> {
    return this.h ? this.h.getSize() : (await this.fh.getFile()).size;
  }

  async read(at: number, length: number): Promise<Uint8Array> {
    if (this.h) {
      const buf = new Uint8Array(length);
      const n = this.h.read(buf, { at });
      return n === length ? buf : buf.subarray(0, n);
    }
    const file = await this.fh.getFile();
    return new Uint8Array(await file.slice(at, at + length).arrayBuffer());
  }

  async write(at: number, data: Uint8Array): Promise<void> {
    const n = (await this.handle()).write(data, { at });
    if (n !== data.length) throw new Error(`short write: ${n} of ${data.length} bytes`);
  }

  async truncate(size: number): Promise<void> {
    (await this.handle()).truncate(size);
  }

  async flush(): Promise<void> {
    this.h?.flush();
  }

  /** No second handle can flush it here: flushed on this thread (false). */
  async flushAside(): Promise<boolean> {
    this.h?.flush();
    return false;
  }

  /** Flush and release the handle; reads still work (through `getFile()`). */
  async close(): Promise<void> {
    const h = this.h;
    if (!h) return;
    this.h = undefined;
    this.held.delete(this);
    try {
      h.flush();
    } finally {
      h.close();
    }
  }
}

/**
 * The sync backend for engines whose sync handles are exclusive (see
 * {@link syncHandlesShareable}): a store holds a file's handle only while it
 * holds the directory's writer lock, and {@link FileBackend.letGo} closes them
 * all before the lock goes, so another store (tab) on the directory can take
 * the lock and open its own. The on-disk format is the same.
 */
export function leasedSyncBackend(dir: FileSystemDirectoryHandle): FileBackend {
  const held = new Set<LeasedSyncFile>();
  return {
    kind: 'sync',
    async open(name, create) {
      try {
        return new LeasedSyncFile(await dir.getFileHandle(name, { create }), held);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    remove: (name) => removeFile(dir, name),
    list: () => listFiles(dir),
    async letGo() {
      for (const f of [...held]) await f.close();
    },
  };
}
