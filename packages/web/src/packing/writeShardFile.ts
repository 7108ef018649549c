import { encodeTarIndex, type TarMember } from '@medfusion/core';
import {
  checkUstarLayout,
  FIXED_TAR_HEADER,
  TAR_BLOCK,
  ustarLayout,
} from '@medfusion/core/internal';
import type { IHasher } from 'hash-wasm';
import { createTarPacker } from 'modern-tar';
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
 * Write one shard into `dir`: its members packed by modern-tar (ustar, fixed
 * header fields) and streamed into the OPFS file while being hashed, then every
 * member's header read back and checked where core's {@link ustarLayout} says
 * it is (so the sidecar index is right), then the sidecar `<name>.idx.json`.
 * `onMember` is told of each member's bytes. Returns the shard's size and sha256.
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
    const { readable, controller } = createTarPacker();
    let at = 0;
    const drain = (async () => {
      for await (const chunk of readable as unknown as AsyncIterable<Uint8Array>) {
        file.write(chunk, { at });
        hasher.update(chunk);
        at += chunk.length;
      }
    })();
    try {
      for (const m of members) {
        signal.throwIfAborted();
        const body = await m.body();
        const writer = controller
          .add({ name: m.name, size: body.length, ...FIXED_TAR_HEADER })
          .getWriter();
        await writer.write(body);
        await writer.close();
        onMember(body.length);
      }
      controller.finalize();
    } catch (error) {
      controller.error(error);
      await drain.catch(() => {});
      throw error;
    }
    await drain;
    if (at !== layout.size) {
      throw new PackFilesError(
        'PACK_OUTPUT',
        name,
        `tar is ${at} bytes, the layout says ${layout.size}`,
      );
    }
    const header = new Uint8Array(TAR_BLOCK);
    for (const m of layout.members) {
      file.read(header, { at: m.offset - TAR_BLOCK });
      checkUstarLayout(header, [{ ...m, offset: TAR_BLOCK }], name);
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
