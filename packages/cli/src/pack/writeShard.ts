import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkUstarLayout,
  encodeTarIndex,
  type TarMember,
  ustarLayout,
} from '@medfusion/core/internal/tar';
import type { ImageKind } from '../input/imageKind.js';
import { KIND_CODES } from '../input/SampleTable.js';
import { PackError } from '../PackError.js';
import { type ChunkRequest, type ChunkSample, chunkBytes } from './assembleChunk.js';
import type { PackPlan, PlannedShard } from './planShards.js';
import type { ScanPool } from './scanPool.js';

/** Most bytes of tar a worker assembles per message (one write to the shard file each), unless one sample is larger. */
const CHUNK_BYTES = 2 << 20;

/** Chunks assembled or waiting at once (bounds the memory: about this many x CHUNK_BYTES). */
const CHUNKS_IN_FLIGHT = 4;

/** The two zero blocks that end a tar archive. */
const END_OF_ARCHIVE = new Uint8Array(1024);

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
    return await hashFile(join(dir, shard.name));
  } catch {
    return undefined;
  }
}

/** Size and sha256 of the file at `path`, read in 1 MB pieces (never whole in memory). */
export async function hashFile(path: string, signal?: AbortSignal): Promise<WrittenShard> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const piece of createReadStream(path, { highWaterMark: 1 << 20, signal })) {
    hash.update(piece as Buffer);
    bytes += (piece as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Write one shard: cut its samples into chunks of about {@link CHUNK_BYTES}, have
 * the pool's workers assemble each chunk's tar bytes (headers with core's fixed
 * fields, the image files read straight into place and checked against the plan:
 * same size, the planned kind, a whole image; decoded with `--decode`), a few chunks at once, and write
 * them in order to a temporary file, hashing on the way and checking every header
 * is where the index says; then the sidecar index and the rename. `signal` stops
 * between chunks (nothing of the shard is left under its final name).
 */
export async function writeShard(
  pool: ScanPool,
  dir: string,
  shard: PlannedShard,
  plan: PackPlan,
  signal: AbortSignal,
  onChunk: (samples: number, bytes: number) => void,
): Promise<WrittenShard> {
  const layout: TarMember[] = []; // filled as the chunks are cut, ahead of their writes
  const path = join(dir, shard.name);
  const { bytes, sha256 } = await streamTar(
    pool,
    `${path}${TEMP_SUFFIX}`,
    cutChunks(shard, plan, layout),
    shard,
    layout,
    signal,
    onChunk,
  );
  await writeAtomic(`${path}.idx.json`, encodeTarIndex(layout, { size: bytes, sha256 }));
  await rename(`${path}${TEMP_SUFFIX}`, path);
  return { bytes, sha256 };
}

/**
 * Append the ustar layout of `chunk`'s members (core's ustarLayout: plain names,
 * offsets from the sizes) to `layout`, the chunk starting at byte `start` of the
 * shard. Returns where the next chunk starts.
 */
function layOut(chunk: ChunkRequest, start: number, layout: TarMember[]): number {
  const { members, size } = ustarLayout(chunk.samples.flatMap((s) => s.members));
  for (const m of members) {
    m.offset += start;
    layout.push(m);
  }
  return start + size - END_OF_ARCHIVE.length;
}

/**
 * The shard's samples cut into chunks of at most {@link CHUNK_BYTES} (a larger
 * sample alone), made as they are asked for: a chunk's objects live only until
 * its reply (short-lived garbage, not a whole shard's worth kept for its write).
 * Each sample's members are made once; their ustar layout is appended to
 * `layout` as each chunk is cut (so the first chunks go to the workers at once,
 * not after a pass over the whole shard), and the whole must come to the
 * planned size of the shard, else a `PACK_OUTPUT` PackError (nothing of the
 * shard is under its final name yet).
 */
function* cutChunks(
  shard: PlannedShard,
  plan: PackPlan,
  layout: TarMember[],
): Generator<ChunkRequest> {
  const { table } = plan;
  let chunk: ChunkRequest = { samples: [], bytes: 0 };
  let start = 0; // where the chunk starts in the shard
  for (let k = shard.first; k < shard.first + shard.count; k++) {
    const i = plan.order[k] as number;
    const members = plan.membersOf(i);
    const bytes = chunkBytes(members);
    if (chunk.samples.length > 0 && chunk.bytes + bytes > CHUNK_BYTES) {
      start = layOut(chunk, start, layout);
      yield chunk;
      chunk = { samples: [], bytes: 0 };
    }
    const c: ChunkSample = {
      path: table.path(i),
      source: table.source(i),
      size: table.size[i] as number,
      kind: KIND_CODES[table.kind[i] as number] as ImageKind,
      members,
    };
    chunk.samples.push(c);
    chunk.bytes += bytes;
  }
  const last = chunk.samples.length > 0 ? chunk : undefined;
  if (last) start = layOut(last, start, layout);
  const size = start + END_OF_ARCHIVE.length;
  if (size !== shard.size) {
    throw new PackError(
      'PACK_OUTPUT',
      shard.name,
      `layout of ${size} bytes, the plan says ${shard.size}`,
    );
  }
  if (last) yield last;
}

/**
 * Spent chunks' memory, sent back to the workers to fill again: a few buffers go
 * round instead of one new one per chunk (freed ones, allocated in a worker's
 * malloc arena and released in the main thread's, kept the resident size growing).
 */
const spares: ArrayBuffer[] = [];

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
  chunks: Iterator<ChunkRequest>,
  shard: PlannedShard,
  layout: readonly TarMember[],
  signal: AbortSignal,
  onChunk: (samples: number, bytes: number) => void,
): Promise<WrittenShard> {
  const hash = createHash('sha256');
  const handle = await open(temp, 'w');
  const inFlight: { samples: number; bytes: Promise<Uint8Array> }[] = [];
  let more = true;
  const ask = () => {
    while (more && inFlight.length < CHUNKS_IN_FLIGHT) {
      const next = chunks.next();
      if (next.done) {
        more = false;
        return;
      }
      const chunk = next.value;
      if (chunk.bytes <= CHUNK_BYTES) chunk.reuse = spares.pop() ?? new ArrayBuffer(CHUNK_BYTES);
      const bytes = pool.assemble(chunk);
      bytes.catch(() => {}); // awaited in order below
      inFlight.push({ samples: chunk.samples.length, bytes });
    }
  };
  try {
    let written = 0;
    let next = 0; // first layout entry whose header is not checked yet
    // Check the headers, start the write, and hash while the thread pool writes;
    // the returned promise is the write's (the caller assembles more meanwhile).
    const put = (buf: Uint8Array): Promise<unknown> => {
      const end = written + buf.length;
      const due: TarMember[] = [];
      while (next < layout.length && (layout[next] as TarMember).offset <= end) {
        const m = layout[next] as TarMember;
        due.push({ name: m.name, size: m.size, offset: m.offset - written });
        next++;
      }
      checkUstarLayout(buf, due, shard.name);
      const writing = handle.write(buf);
      writing.catch(() => {}); // awaited by the caller
      hash.update(buf);
      written = end;
      return writing;
    };
    for (ask(); inFlight.length > 0; ) {
      signal.throwIfAborted();
      const c = inFlight.shift() as { samples: number; bytes: Promise<Uint8Array> };
      const buf = await c.bytes;
      const writing = put(buf);
      ask(); // the next chunks are put together while this one is written
      await writing;
      onChunk(c.samples, buf.length);
      if (buf.buffer.byteLength === CHUNK_BYTES) spares.push(buf.buffer as ArrayBuffer);
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
