import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeTarIndex, type TarMember } from '@medfusion/core';
import { checkUstarLayout, ustarLayout } from '@medfusion/core/internal';
import type { SampleInput } from '../input/SampleInput.js';
import type { ScanPool } from '../input/scanPool.js';
import { PackError } from '../PackError.js';
import { type ChunkRequest, chunkBytes } from './assembleChunk.js';
import type { PlannedMember, PlannedShard } from './planShards.js';

/** Bytes of tar a worker assembles per message (one write to the shard file each). */
const CHUNK_BYTES = 4 << 20;

/** Chunks assembled or waiting at once (bounds the memory: about this many x CHUNK_BYTES). */
const CHUNKS_IN_FLIGHT = 6;

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
 * Write one shard: cut its samples into chunks of about {@link CHUNK_BYTES}, have
 * the pool's workers assemble each chunk's tar bytes (headers with core's fixed
 * fields, the image files read straight into place and checked against the scan:
 * same size and sha256; decoded with `--decode`), a few chunks at once, and write
 * them in order to a temporary file, hashing on the way and checking every header
 * is where the index says; then the sidecar index and the rename. `signal` stops
 * between chunks (nothing of the shard is left under its final name).
 */
export async function writeShard(
  pool: ScanPool,
  dir: string,
  shard: PlannedShard,
  membersOf: (sample: SampleInput) => PlannedMember[],
  signal: AbortSignal,
  onChunk: (samples: number, bytes: number) => void,
): Promise<WrittenShard> {
  const chunks: ChunkRequest[] = [];
  const all: PlannedMember[] = [];
  let chunk: ChunkRequest = { samples: [], bytes: 0 };
  for (const sample of shard.samples) {
    const members = membersOf(sample);
    all.push(...members);
    if (chunk.samples.length > 0 && chunk.bytes >= CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = { samples: [], bytes: 0 };
    }
    chunk.samples.push({
      path: sample.path,
      source: sample.source,
      size: sample.size as number,
      sha256: sample.sha256 as string,
      members,
    });
    chunk.bytes += chunkBytes(members);
  }
  if (chunk.samples.length > 0) chunks.push(chunk);
  const { members: layout, size } = ustarLayout(all);
  if (size !== shard.size) {
    throw new PackError(
      'PACK_OUTPUT',
      shard.name,
      `layout of ${size} bytes, the plan says ${shard.size}`,
    );
  }
  const path = join(dir, shard.name);
  const { bytes, sha256 } = await streamTar(
    pool,
    `${path}${TEMP_SUFFIX}`,
    chunks,
    shard,
    layout,
    signal,
    onChunk,
  );
  await writeAtomic(`${path}.idx.json`, encodeTarIndex(layout, { size: bytes, sha256 }));
  await rename(`${path}${TEMP_SUFFIX}`, path);
  return { bytes, sha256 };
}

/** The two zero blocks that end a tar archive. */
const END_OF_ARCHIVE = new Uint8Array(1024);

/**
 * Write the chunks' tar bytes (assembled by the pool, {@link CHUNKS_IN_FLIGHT} at
 * once, written in order) and the end-of-archive blocks to the file at `temp`,
 * hashing on the way and checking each ustar header is where the shard's layout
 * says (so the sidecar index is right), then sync it. The whole tar is never held
 * in memory.
 */
async function streamTar(
  pool: ScanPool,
  temp: string,
  chunks: readonly ChunkRequest[],
  shard: PlannedShard,
  layout: readonly TarMember[],
  signal: AbortSignal,
  onChunk: (samples: number, bytes: number) => void,
): Promise<WrittenShard> {
  const hash = createHash('sha256');
  const handle = await open(temp, 'w');
  const inFlight: Promise<Uint8Array>[] = [];
  let asked = 0;
  const ask = () => {
    while (asked < chunks.length && inFlight.length < CHUNKS_IN_FLIGHT) {
      const p = pool.assemble(chunks[asked++] as ChunkRequest);
      p.catch(() => {}); // awaited in order below
      inFlight.push(p);
    }
  };
  try {
    let written = 0;
    let next = 0; // first layout entry whose header is not checked yet
    const put = async (buf: Uint8Array) => {
      hash.update(buf);
      const end = written + buf.length;
      const due: TarMember[] = [];
      while (next < layout.length && (layout[next] as TarMember).offset <= end) {
        const m = layout[next] as TarMember;
        due.push({ ...m, offset: m.offset - written });
        next++;
      }
      checkUstarLayout(buf, due, shard.name);
      await handle.write(buf);
      written = end;
    };
    for (const c of chunks) {
      signal.throwIfAborted();
      ask();
      const buf = await (inFlight.shift() as Promise<Uint8Array>);
      await put(buf);
      onChunk(c.samples.length, buf.length);
    }
    await put(END_OF_ARCHIVE);
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
