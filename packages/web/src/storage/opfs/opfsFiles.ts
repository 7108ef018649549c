/**
 * The file operations the OPFS segment engine needs, implemented over sync
 * access handles (in a dedicated worker, see opfs.worker.ts) or over the
 * async File System API (opfsAsyncFallback.ts). Internal.
 */
export interface OpfsFile {
  /** Current size in bytes. */
  size(): Promise<number>;
  /** Up to `length` bytes from `at` (fewer at the end of the file). */
  read(at: number, length: number): Promise<Uint8Array>;
  /**
   * The same as {@link read}, without a promise: offered by sync access
   * handles only, so the engine can serve a batch of reads with no await.
   * With `into` (at least `length` bytes), the bytes are read into it and the
   * result is a view of it: no fresh buffer.
   */
  readSync?(at: number, length: number, into?: Uint8Array): Uint8Array;
  /** Write `data` at `at`, extending the file as needed. */
  write(at: number, data: Uint8Array): Promise<void>;
  /** Cut the file to `size` bytes. */
  truncate(size: number): Promise<void>;
  /** Make written bytes durable. */
  flush(): Promise<void>;
  /**
   * The same as {@link flush}, but done by another thread where one is
   * offered (sync handles in a worker), so this one goes on writing
   * meanwhile; resolves once the bytes written before the call are durable:
   * true when another thread flushed them, false when this one had to.
   */
  flushAside?(): Promise<boolean>;
  /** Release the handle. */
  close(): Promise<void>;
}

/** A directory of {@link OpfsFile}s. */
export interface FileBackend {
  /** `'sync'` (sync access handles) or `'async'` (createWritable / getFile). */
  readonly kind: 'sync' | 'async';
  /** Open `name`, creating it when `create`; undefined when absent. */
  open(name: string, create: boolean): Promise<OpfsFile | undefined>;
  /** Delete `name`; false when it could not be removed (e.g. open elsewhere). */
  remove(name: string): Promise<boolean>;
  /** Names of the files in the directory. */
  list(): Promise<string[]>;
  /**
   * Called before the store lets go of the directory's writer lock: release
   * what another store would need to write (exclusive sync handles, see
   * opfsLeasedSyncBackend.ts). Absent where nothing is held.
   */
  letGo?(): Promise<void>;
}

/** Resolve (creating) a nested OPFS directory like `'medfusion/xray'`. */
export async function openDirectory(path: string): Promise<FileSystemDirectoryHandle> {
  let dir = await navigator.storage.getDirectory();
  for (const part of path.split('/')) {
    if (part) dir = await dir.getDirectoryHandle(part, { create: true });
  }
  return dir;
}

/** Names of the files directly in `dir`. */
export async function listFiles(dir: FileSystemDirectoryHandle): Promise<string[]> {
  const names: string[] = [];
  const iter = (dir as unknown as { keys(): AsyncIterable<string> }).keys();
  for await (const name of iter) names.push(name);
  return names;
}

/** True when the error means "no such file". */
export function isNotFound(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'NotFoundError';
}

/** Remove file `name` from `dir`; true when it is gone (removed now or already missing). */
export async function removeFile(dir: FileSystemDirectoryHandle, name: string): Promise<boolean> {
  try {
    await dir.removeEntry(name);
    return true;
  } catch (err) {
    return isNotFound(err);
  }
}
