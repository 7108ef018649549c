import { encodeTarIndex, type TarMember } from '@medfusion/core';
import { TAR_BLOCK, ustarLayout, writeUstarHeader } from '@medfusion/core/internal';
import type { IHasher } from 'hash-wasm';
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

/** The sync access handle calls the writer uses (a dedicated worker's OPFS file). */
interface SyncFile {
  write(data: Uint8Array, options: { at: number }): number;
  read(into: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

async function syncFile(dir: FileSystemDirectoryHandle, name: string): Promise<SyncFile> {
  const handle = await dir.getFileHandle(name, { create: true });
  const file = await (
    handle as unknown as { createSyncAccessHandle(): Promise<SyncFile> }
  ).createSyncAccessHandle();
  file.truncate(0);
  return file;
}

/** Write `bytes` as the whole file `name` of `dir`, flushed. */
export async function writeWholeFile(
  dir: FileSystemDirectoryHandle,
  name: string,
  bytes: Uint8Array,
): Promise<void> {
  const file = await syncFile(dir, name);
  try {
    file.write(bytes, { at: 0 });
    file.flush();
  } finally {
    file.close();
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
  const file = await syncFile(dir, name);
  try {
    hasher.init();
    const block = new Uint8Array(TAR_BLOCK);
    let at = 0;
    const put = (bytes: Uint8Array) => {
      file.write(bytes, { at });
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
      put(block);
      put(body);
      const pad = (TAR_BLOCK - (body.length % TAR_BLOCK)) % TAR_BLOCK;
      if (pad > 0) put(new Uint8Array(block.buffer, 0, pad).fill(0));
      onMember(body.length);
    }
    block.fill(0);
    put(block);
    put(block);
    if (at !== layout.size) {
      throw new PackFilesError(
        'PACK_OUTPUT',
        name,
        `tar is ${at} bytes, the layout says ${layout.size}`,
      );
    }
    file.flush();
    const sha256 = hasher.digest('hex');
    await writeWholeFile(
      dir,
      `${name}.idx.json`,
      encodeTarIndex(layout.members, { size: at, sha256 }),
    );
    return { bytes: at, sha256 };
  } finally {
    file.close();
  }
}
