import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { encodeTarIndex } from '@medfusion/core';
import { checkUstarLayout } from '@medfusion/core/internal';
import { packTar, type TarEntry } from 'modern-tar';
import type { SampleInput } from '../input/SampleInput.js';
import { PackError } from '../PackError.js';
import { decodePixels } from './decodePixels.js';
import type { PlannedMember, PlannedShard } from './planShards.js';

/** Fixed header fields: the bytes depend on the data only (no clock, no user). */
const FIXED = { mtime: new Date(0), mode: 0o644, uid: 0, gid: 0, uname: '', gname: '' } as const;

/** Suffix of a file being written; renamed to its final name once complete. */
export const TEMP_SUFFIX = '.partial';

/** A written shard: its size and sha256. */
export interface WrittenShard {
  /** Size in bytes. */
  bytes: number;
  /** Hex sha256. */
  sha256: string;
}

/** Write `bytes` to `path` through a temporary name, synced, then renamed. */
export async function writeAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  const temp = `${path}${TEMP_SUFFIX}`;
  try {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    // Errors of a file handle carry no path: name the file being written.
    if (error instanceof Error && !('path' in error)) Object.assign(error, { path });
    throw error;
  }
}

/**
 * A shard already complete in `dir` from an earlier run of the same plan: its
 * tar and sidecar exist with the planned size. Returns its sha256, or undefined.
 */
export async function completedShard(
  dir: string,
  shard: PlannedShard,
): Promise<WrittenShard | undefined> {
  try {
    const info = await stat(join(dir, shard.name));
    await stat(join(dir, `${shard.name}.idx.json`));
    if (info.size !== shard.size) return undefined;
    const bytes = await readFile(join(dir, shard.name));
    return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  } catch {
    return undefined;
  }
}

/**
 * The bytes of a sample's image member: the file as scanned (same size and
 * sha256, else the file changed), decoded to a `.npy` with `--decode`.
 */
async function imageMember(sample: SampleInput, m: PlannedMember): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(sample.path);
  } catch (error) {
    const why =
      (error as { code?: string }).code === 'ENOENT' ? 'vanished while packing' : String(error);
    throw new PackError('PACK_INPUT', sample.source, `cannot read the file: ${why}`, {
      cause: error,
    });
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== sample.size || sha !== sample.sha256) {
    throw new PackError(
      'PACK_INPUT',
      sample.source,
      'the file changed while packing (size or sha256 differ from the scan)',
    );
  }
  if (!m.decode) return bytes;
  let decoded: Uint8Array;
  try {
    decoded = await decodePixels(bytes, m.decode);
  } catch (error) {
    throw new PackError(
      'PACK_INPUT',
      sample.source,
      `cannot decode the image: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (decoded.length !== m.size) {
    throw new PackError(
      'PACK_INPUT',
      sample.source,
      `decoded to ${decoded.length} bytes, ${m.size} expected (its size differs from its header's)`,
    );
  }
  return decoded;
}

/**
 * Write one shard: read its image files, several at once (checking each is still
 * the file that was scanned: same size and sha256; decoding it with `--decode`), pack the tar (modern-tar, ustar, fixed
 * mtime/uid/gid/names), check every header is where the index says, then write
 * the sidecar index and the tar, each through a temporary name. `signal` stops
 * between files (nothing of the shard is left under its final name).
 */
export async function writeShard(
  dir: string,
  shard: PlannedShard,
  signal: AbortSignal,
  onSample: (bytes: number) => void,
): Promise<WrittenShard> {
  const entries: TarEntry[] = [];
  const width = Math.max(4, availableParallelism() * 2);
  for (let from = 0; from < shard.samples.length; from += width) {
    signal.throwIfAborted();
    const batch = shard.samples.slice(from, from + width);
    const bodies = await Promise.all(
      batch.map(({ sample, members }) =>
        Promise.all(members.map((m) => m.body ?? imageMember(sample, m))),
      ),
    );
    batch.forEach(({ members }, i) => {
      members.forEach((m, k) => {
        const body = (bodies[i] as Uint8Array[])[k] as Uint8Array;
        entries.push({ header: { name: m.name, size: m.size, type: 'file', ...FIXED }, body });
      });
      onSample(members.reduce((a, m) => a + m.size, 0));
    });
  }
  signal.throwIfAborted();
  const tar = await packTar(entries);
  if (tar.length !== shard.size) {
    throw new PackError(
      'PACK_OUTPUT',
      shard.name,
      `tar is ${tar.length} bytes, the layout says ${shard.size}`,
    );
  }
  checkUstarLayout(tar, shard.layout, shard.name);
  const sha256 = createHash('sha256').update(tar).digest('hex');
  await writeAtomic(
    join(dir, `${shard.name}.idx.json`),
    encodeTarIndex(shard.layout, { size: tar.length, sha256 }),
  );
  await writeAtomic(join(dir, shard.name), tar);
  return { bytes: tar.length, sha256 };
}

/** Remove the temporary files a stopped run left in `dir`. */
export async function removeTemporaries(dir: string, names: readonly string[]): Promise<void> {
  await Promise.all(names.map((n) => rm(join(dir, `${n}${TEMP_SUFFIX}`), { force: true })));
}
