import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { paddedSize, TAR_BLOCK, writeUstarHeader } from '@medfusion/core/internal';
import { sniffImage } from '../input/imageKind.js';
import { PackError } from '../PackError.js';
import type { PlannedMember } from './planShards.js';

/** One sample of a chunk: where its image is, what the scan found, its members. */
export interface ChunkSample {
  /** Absolute path of the image file. */
  path: string;
  /** How errors name the sample. */
  source: string;
  /** Size of the file when scanned. */
  size: number;
  /** Hex sha256 of the file when scanned. */
  sha256: string;
  /** The sample's members, in tar order (the first one is the image unless it has a body). */
  members: PlannedMember[];
  /** The file's bytes as scanned, when kept: copied in place of a read (the file is only checked to be still there, same size). */
  bytes?: Uint8Array;
}

/** A run of consecutive samples of a shard, assembled in a pack worker. */
export interface ChunkRequest {
  /** The samples, in shard order. */
  samples: ChunkSample[];
  /** Bytes of the chunk: a header block and the padded data per member. */
  bytes: number;
  /** A spent chunk's memory to fill again (used when it holds `bytes`): no allocation per chunk. */
  reuse?: ArrayBuffer;
}

/** Bytes of a chunk of these members (a header block and the padded data each). */
export function chunkBytes(members: readonly PlannedMember[]): number {
  return members.reduce((a, m) => a + TAR_BLOCK + paddedSize(m.size), 0);
}

const probe = new Uint8Array(1);

/** The `PACK_INPUT` error of a file that cannot be read. */
function unreadable(source: string, error: unknown): PackError {
  const why =
    (error as { code?: string }).code === 'ENOENT' ? 'vanished while packing' : String(error);
  return new PackError('PACK_INPUT', source, `cannot read the file: ${why}`, { cause: error });
}

function changed(source: string): PackError {
  return new PackError(
    'PACK_INPUT',
    source,
    'the file changed while packing (size or sha256 differ from the scan)',
  );
}

/**
 * Read the file of `sample` straight into `out` at `at` (its planned place in
 * the tar) and check it is still the file that was scanned: same size (no byte
 * more, none less) and same sha256.
 */
function readInto(sample: ChunkSample, out: Uint8Array, at: number): void {
  let fd: number;
  try {
    fd = openSync(sample.path, 'r');
  } catch (error) {
    throw unreadable(sample.source, error);
  }
  let got = 0;
  let more = 0;
  try {
    while (got < sample.size) {
      const n = readSync(fd, out, at + got, sample.size - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got === sample.size) more = readSync(fd, probe, 0, 1, got);
  } catch (error) {
    throw unreadable(sample.source, error);
  } finally {
    closeSync(fd);
  }
  const sha = createHash('sha256')
    .update(out.subarray(at, at + got))
    .digest('hex');
  if (got !== sample.size || more !== 0 || sha !== sample.sha256) throw changed(sample.source);
}

/** A file whose kept bytes are written: where it is, how errors name it, its size when scanned. */
export interface KeptFile {
  /** Absolute path of the file. */
  path: string;
  /** How errors name the sample. */
  source: string;
  /** Size of the file when scanned. */
  size: number;
}

/**
 * Check that the files whose kept bytes a chunk copies are still there with
 * their scanned size (one stat each): a file that vanished or changed size
 * while packing is the same `PACK_INPUT` PackError as when it is read again.
 * (The bytes written are the ones scanned and hashed, so the shard matches the
 * plan's fingerprint either way.) Run by a pool worker, beside the main thread's copy.
 */
export function checkKept(files: readonly KeptFile[]): void {
  for (const file of files) {
    let size: number;
    try {
      size = statSync(file.path).size;
    } catch (error) {
      throw unreadable(file.source, error);
    }
    if (size !== file.size) throw changed(file.source);
  }
}

/** The image of `sample` decoded (`--decode`) to the `.npy` member `m`, checked against its planned size. */
async function decodeMember(sample: ChunkSample, m: PlannedMember): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(sample.path);
  } catch (error) {
    throw unreadable(sample.source, error);
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== sample.size || sha !== sample.sha256) throw changed(sample.source);
  let decoded: Uint8Array;
  try {
    const options = m.decode as NonNullable<PlannedMember['decode']>;
    // the decoders are loaded with --decode only
    decoded =
      sniffImage(bytes) === 'dcm'
        ? await (await import('./decodeDicom.js')).decodeDicom(bytes, options)
        : await (await import('./decodePixels.js')).decodePixels(bytes, options);
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
 * The tar bytes of a chunk, as one buffer (the request's spent one when it fits): per member its ustar header (core's
 * fixed fields) and its data padded with zeros, the image files read straight
 * into place (or copied from the scan's kept bytes, which {@link checkKept}
 * checks, or decoded with `--decode`), each checked against its scan. A
 * `PACK_INPUT` PackError names the first file that vanished, changed or does
 * not decode.
 */
export async function assembleChunk(request: ChunkRequest): Promise<Uint8Array> {
  const { reuse, bytes } = request;
  const out =
    reuse && reuse.byteLength >= bytes ? new Uint8Array(reuse, 0, bytes) : new Uint8Array(bytes);
  let at = 0;
  for (const sample of request.samples) {
    for (const m of sample.members) {
      writeUstarHeader(out, at, m.name, m.size);
      at += TAR_BLOCK;
      if (m.body) out.set(m.body, at);
      else if (m.decode) out.set(await decodeMember(sample, m), at);
      else if (sample.bytes?.length === m.size) out.set(sample.bytes, at);
      else readInto(sample, out, at);
      out.fill(0, at + m.size, at + paddedSize(m.size)); // a reused chunk holds old bytes
      at += paddedSize(m.size);
    }
  }
  if (at !== request.bytes) {
    throw new PackError(
      'PACK_OUTPUT',
      request.samples[0]?.source ?? '(chunk)',
      `chunk of ${at} bytes, ${request.bytes} planned`,
    );
  }
  return out;
}
