import { encodeTarIndex, type TarMember } from '@medfusion/core';
import { TAR_BLOCK, ustarLayout, writeUstarHeader } from '@medfusion/core/internal';
import type { IHasher } from 'hash-wasm';
import { syncAccessHandlesWork } from '../storage/opfs/opfsAsyncFallback.js';
import { PackFilesError } from './PackFilesError.js';

/** One member of a shard: its name and its bytes (read when the shard is written). */
export interface ShardMember {
  /** Member name (`<key>.<ext>`). */
  name: string;
  /** Size in bytes, as planned. */
  size: number;
  /** The bytes. */
  body: () => Promise<Uint8Array>;
}

/** A file being written from its start, in order; `close(false)` leaves it as it was. */
interface AppendFile {
  write(bytes: Uint8Array): Promise<void>;
  close(commit: boolean): Promise<void>;
}

/** The sync access handle calls the writer uses (a dedicated worker's OPFS file). */
interface SyncHandle {
  write(data: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

/**
 * Open `name` in `dir` for writing from its start: through a sync access handle
 * where they work, else (WebKitGTK offers them but refuses to open one) through
 * `createWritable()`, which commits on close, the async OPFS path the stores take
 * there too (`syncAccessHandlesWork`).
 */
async function appendFile(dir: FileSystemDirectoryHandle, name: string): Promise<AppendFile> {
  const handle = await dir.getFileHandle(name, { create: true });
  if (await syncAccessHandlesWork()) {
    const file = await (
      handle as unknown as { createSyncAccessHandle(): Promise<SyncHandle> }
    ).createSyncAccessHandle();
    file.truncate(0);
    let at = 0;
    return {
      write: async (bytes) => {
        at += file.write(bytes, { at });
      },
      close: async (commit) => {
        if (commit) file.flush();
        file.close();
      },
    };
  }
  const writable = await handle.createWritable({ keepExistingData: false });
  return {
    // A view of part of a buffer is copied: WebKit writes a view's whole ArrayBuffer.
    write: (bytes) =>
      writable.write(
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
          ? (bytes as Uint8Array<ArrayBuffer>)
          : bytes.slice(),
      ),
    close: (commit) => (commit ? writable.close() : writable.abort()),
  };
}

/** Write `bytes` as the whole file `name` of `dir`, flushed. */
export async function writeWholeFile(
  dir: FileSystemDirectoryHandle,
  name: string,
  bytes: Uint8Array,
): Promise<void> {
  const file = await appendFile(dir, name);
  let done = false;
  try {
    await file.write(bytes);
    done = true;
  } finally {
    await file.close(done);
  }
}

/**
 * Write one shard into `dir`: each member's ustar header (core's
 * {@link writeUstarHeader}: fixed fields, the one writer `medfusion pack` uses
 * too) then its bytes padded to whole blocks, at the offsets core's
 * {@link ustarLayout} gives (so the sidecar index is right by construction),
 * hashed as written, then the two closing blocks and the sidecar
 * `<name>.idx.json`. A member whose bytes are not its planned size fails the
 * shard (`PACK_OUTPUT`). `onMember` is told of each member's bytes. Returns the shard's size and sha256.
 */
export async function writeShardFile(
  dir: FileSystemDirectoryHandle,
  name: string,
  members: readonly ShardMember[],
  hasher: IHasher,
  signal: AbortSignal,
  onMember: (bytes: number) => void,
): Promise<{ bytes: number; sha256: string }> {
  const layout: { members: TarMember[]; size: number } = ustarLayout(members);
  const file = await appendFile(dir, name);
  let done = false;
  try {
    hasher.init();
    const block = new Uint8Array(TAR_BLOCK);
    let at = 0;
    const put = async (bytes: Uint8Array) => {
      await file.write(bytes);
      hasher.update(bytes);
      at += bytes.length;
    };
    for (const m of members) {
      signal.throwIfAborted();
      const body = await m.body();
      if (body.length !== m.size) {
        throw new PackFilesError(
          'PACK_OUTPUT',
          name,
          `member ${m.name} is ${body.length} bytes, the layout planned ${m.size}`,
        );
      }
      writeUstarHeader(block, 0, m.name, m.size);
      await put(block);
      await put(body);
      const pad = (TAR_BLOCK - (body.length % TAR_BLOCK)) % TAR_BLOCK;
      if (pad > 0) await put(new Uint8Array(block.buffer, 0, pad).fill(0));
      onMember(body.length);
    }
    block.fill(0);
    await put(block);
    await put(block);
    if (at !== layout.size) {
      throw new PackFilesError(
        'PACK_OUTPUT',
        name,
        `tar is ${at} bytes, the layout says ${layout.size}`,
      );
    }
    done = true;
    await file.close(true);
    const sha256 = hasher.digest('hex');
    await writeWholeFile(
      dir,
      `${name}.idx.json`,
      encodeTarIndex(layout.members, { size: at, sha256 }),
    );
    return { bytes: at, sha256 };
  } finally {
    if (!done) await file.close(false);
  }
}
