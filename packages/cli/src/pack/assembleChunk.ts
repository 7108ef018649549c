import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { paddedSize, TAR_BLOCK, writeUstarHeader } from '@medfusion/core/internal/tar';
import { checkImage } from '../input/checkImage.js';
import type { ImageKind } from '../input/imageKind.js';
import { PackError } from '../PackError.js';
import type { PlannedMember } from './planShards.js';

/** One sample of a chunk: where its image is, what the plan says of it, its members. */
export interface ChunkSample {
  /** Absolute path of the image file. */
  path: string;
  /** How errors name the sample. */
  source: string;
  /** Size of the file when listed. */
  size: number;
  /** Its kind as planned (from its name, or from a look inside when listed). */
  kind: ImageKind;
  /** The sample's members, in tar order (the first one is the image unless it has a body). */
  members: PlannedMember[];
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
const utf8 = new TextEncoder();

/** The `PACK_INPUT` error of a file that cannot be read. */
function unreadable(source: string, error: unknown): PackError {
  const why =
    (error as { code?: string }).code === 'ENOENT' ? 'vanished while packing' : String(error);
  return new PackError('PACK_INPUT', source, `cannot read the file: ${why}`, { cause: error });
}

function changed(source: string, size: number, got: string): PackError {
  return new PackError(
    'PACK_INPUT',
    source,
    `the file changed size while packing: it was ${size} bytes when listed, ${got} now`,
  );
}

/**
 * Check the bytes of `sample` just read are the image the plan took it for: a
 * PNG, JPEG or DICOM file of the planned kind, whole (PNG chunks and CRCs, JPEG
 * segments, DICOM header and pixel data). A `PACK_INPUT` PackError otherwise.
 */
function checkRead(sample: ChunkSample, bytes: Uint8Array): void {
  let found: ImageKind | undefined;
  try {
    found = checkImage(bytes, [])?.kind;
  } catch (error) {
    throw new PackError('PACK_INPUT', sample.source, (error as Error).message, { cause: error });
  }
  if (found === sample.kind) return;
  throw new PackError(
    'PACK_INPUT',
    sample.source,
    found === undefined
      ? `is not a PNG, JPEG or DICOM file (its name says ${sample.kind})`
      : `is a ${found} file, its name says ${sample.kind}: rename it, or convert it`,
  );
}

/**
 * Read the file of `sample` straight into `out` at `at` (its planned place in
 * the tar) and check it is still the file that was listed (same size: no byte
 * more, none less) and the image the plan took it for. When the member's
 * padding has room, one byte more than the listed size is asked for in the same
 * read (the padding is zeroed after): a read that stops at the listed size is
 * at the file's end (a regular file's read is short only there), one that gets
 * the extra byte found a file that grew. Otherwise a 1-byte read past the size
 * must come back empty.
 */
function readInto(sample: ChunkSample, out: Uint8Array, at: number): void {
  let fd: number;
  try {
    fd = openSync(sample.path, 'r');
  } catch (error) {
    throw unreadable(sample.source, error);
  }
  const { size } = sample;
  const ask = paddedSize(size) > size ? size + 1 : size;
  let got = 0;
  let more = 0;
  try {
    while (got < ask) {
      const n = readSync(fd, out, at + got, ask - got, got);
      if (n === 0) break;
      got += n;
      if (got === size && ask > size) break; // short of the extra byte: the end
    }
    if (got > size) {
      more = 1;
      got = size;
    } else if (got === size && ask === size) more = readSync(fd, probe, 0, 1, got);
  } catch (error) {
    throw unreadable(sample.source, error);
  } finally {
    closeSync(fd);
  }
  if (got !== sample.size || more !== 0)
    throw changed(sample.source, sample.size, more ? 'more' : `${got} bytes`);
  checkRead(sample, out.subarray(at, at + got));
}

/** The image of `sample` decoded (`--decode`) to the `.npy` member `m`, checked against its planned size. */
async function decodeMember(sample: ChunkSample, m: PlannedMember): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(sample.path);
  } catch (error) {
    throw unreadable(sample.source, error);
  }
  if (bytes.length !== sample.size)
    throw changed(sample.source, sample.size, `${bytes.length} bytes`);
  checkRead(sample, bytes);
  let decoded: Uint8Array;
  try {
    const options = m.decode as NonNullable<PlannedMember['decode']>;
    // the decoders are loaded with --decode only
    decoded =
      sample.kind === 'dcm'
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
 * into place (or decoded with `--decode`), each checked against the plan. A
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
      if (m.body !== undefined) utf8.encodeInto(m.body, out.subarray(at, at + m.size));
      else if (m.decode) out.set(await decodeMember(sample, m), at);
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
