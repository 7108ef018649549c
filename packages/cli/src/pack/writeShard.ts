import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeTarIndex, type TarMember } from '@medfusion/core';
import { checkUstarLayout, FIXED_TAR_HEADER, ustarLayout } from '@medfusion/core/internal';
import { packTar, type TarSource } from 'modern-tar/fs';
import type { SampleInput } from '../input/SampleInput.js';
import { PackError } from '../PackError.js';
import { decodePixels } from './decodePixels.js';
import { mapInOrder } from './mapInOrder.js';
import type { PlannedMember, PlannedShard } from './planShards.js';

/** Image files read (and decoded) at once while a shard is assembled. */
const READS_IN_FLIGHT = 32;

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
 * the file that was scanned: same size and sha256; decoding it with `--decode`), pack the tar (modern-tar's Node packer, ustar, fixed
 * mtime/uid/gid/names), check every header is where the index says, then write
 * the sidecar index and the tar, each through a temporary name. `signal` stops
 * between files (nothing of the shard is left under its final name).
 */
export async function writeShard(
  dir: string,
  shard: PlannedShard,
  membersOf: (sample: SampleInput) => PlannedMember[],
  signal: AbortSignal,
  onSample: (bytes: number) => void,
): Promise<WrittenShard> {
  const planned = shard.samples.map((sample) => ({ sample, members: membersOf(sample) }));
  const { members: layout, size } = ustarLayout(planned.flatMap((x) => x.members));
  if (size !== shard.size) {
    throw new PackError(
      'PACK_OUTPUT',
      shard.name,
      `layout of ${size} bytes, the plan says ${shard.size}`,
    );
  }
  const bodies = await mapInOrder(
    planned,
    READS_IN_FLIGHT,
    async ({ sample, members }) => {
      const got = await Promise.all(members.map((m) => m.body ?? imageMember(sample, m)));
      onSample(members.reduce((a, m) => a + m.size, 0));
      return got;
    },
    signal,
  );
  signal.throwIfAborted();
  const sources: TarSource[] = [];
  planned.forEach(({ members }, i) => {
    members.forEach((m, k) => {
      const content = (bodies[i] as Uint8Array[])[k] as Uint8Array;
      sources.push({ type: 'content', target: m.name, content, ...FIXED_TAR_HEADER });
    });
  });
  const path = join(dir, shard.name);
  const { bytes, sha256 } = await streamTar(`${path}${TEMP_SUFFIX}`, sources, shard, layout);
  await writeAtomic(`${path}.idx.json`, encodeTarIndex(layout, { size: bytes, sha256 }));
  await rename(`${path}${TEMP_SUFFIX}`, path);
  return { bytes, sha256 };
}

/** Bytes gathered before one write to the shard file. */
const WRITE_BYTES = 1 << 20;

/**
 * Pack `sources` (modern-tar's Node packer) straight into the file at `temp`,
 * about 1 MB per write, hashing on the way and checking each ustar header is
 * where the shard's layout says (so the sidecar index is right), then sync it.
 * The whole tar is never held in memory.
 */
async function streamTar(
  temp: string,
  sources: TarSource[],
  shard: PlannedShard,
  layout: readonly TarMember[],
): Promise<WrittenShard> {
  const hash = createHash('sha256');
  const handle = await open(temp, 'w');
  try {
    let written = 0; // file position of `batch[0]`
    let carry: Uint8Array = new Uint8Array(0); // the previous write's last block: a header may straddle
    let next = 0; // first layout entry whose header is not checked yet
    let batch: Uint8Array[] = [];
    let batched = 0;
    const flush = async () => {
      const buf = Buffer.concat(batch);
      batch = [];
      batched = 0;
      hash.update(buf);
      const view = carry.length > 0 ? Buffer.concat([carry, buf]) : buf;
      const base = written - carry.length;
      const end = written + buf.length;
      const due: TarMember[] = [];
      while (next < layout.length && (layout[next] as { offset: number }).offset <= end) {
        const m = layout[next] as TarMember;
        due.push({ ...m, offset: m.offset - base });
        next++;
      }
      checkUstarLayout(view, due, shard.name);
      await handle.write(buf);
      written = end;
      carry = buf.subarray(Math.max(0, buf.length - 512));
    };
    for await (const chunk of packTar(sources)) {
      batch.push(chunk as Uint8Array);
      batched += (chunk as Uint8Array).length;
      if (batched >= WRITE_BYTES) await flush();
    }
    if (batched > 0) await flush();
    if (written !== shard.size || next !== layout.length) {
      throw new PackError(
        'PACK_OUTPUT',
        shard.name,
        `tar is ${written} bytes, the layout says ${shard.size}`,
      );
    }
    await handle.sync();
    return { bytes: written, sha256: hash.digest('hex') };
  } catch (error) {
    if (error instanceof Error && !('path' in error)) Object.assign(error, { path: temp });
    throw error;
  } finally {
    await handle.close();
  }
}

/** Remove the temporary files a stopped run left in `dir`. */
export async function removeTemporaries(dir: string, names: readonly string[]): Promise<void> {
  await Promise.all(names.map((n) => rm(join(dir, `${n}${TEMP_SUFFIX}`), { force: true })));
}
