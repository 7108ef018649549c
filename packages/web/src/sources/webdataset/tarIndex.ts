import { MedFusionError } from '@medfusion/core';
import { createTarDecoder } from 'modern-tar';
import { SourceFormatError } from '../../remote/RemoteError.js';

/** One regular file inside a tar shard: where its bytes are. */
export interface TarMember {
  /** Path inside the archive (after PAX / GNU long-name resolution). */
  name: string;
  /** Offset of the member's data from the start of the shard, in bytes. */
  offset: number;
  /** Data size in bytes. */
  size: number;
}

/** One WebDataset sample: consecutive members sharing a key (path up to the first dot of the basename). */
export interface TarSampleEntry {
  /** The sample key, e.g. `train/sample000017`. */
  key: string;
  /** First byte of the sample's first member. */
  start: number;
  /** One past the last byte of its last member. */
  end: number;
  /** Members by extension (`png`, `cls`, `seg.png`, ...). */
  members: { ext: string; offset: number; size: number }[];
}

/** The sidecar / stored index format: `{ format, version, entries: [[name, offset, size], ...] }`. */
export interface TarIndexFile {
  /** Always `'medfusion-tar-index'`. */
  format: 'medfusion-tar-index';
  /** Format version, 1. */
  version: 1;
  /** `[name, offset, size]` for every regular file, in archive order. */
  entries: [string, number, number][];
  /** ETag of the shard the index was built from, when known. */
  etag?: string;
  /** Size of the shard in bytes, when known. */
  size?: number;
  /** sha256 (hex) the shard was verified against, when it was. */
  sha256?: string;
}

/**
 * Index a tar stream in one pass: the names and sizes come from the tar
 * parser (modern-tar, which resolves PAX and GNU long names); the data offset
 * of each member is where its first body chunk lies in the input, found from
 * the chunk the parser hands back (it slices input chunks, never copies).
 * `onChunk` sees every input chunk (e.g. to hash the shard on the way).
 */
export async function indexTarStream(
  stream: ReadableStream<Uint8Array>,
  onChunk?: (chunk: Uint8Array) => void,
): Promise<TarMember[]> {
  const bases = new Map<ArrayBufferLike, number>();
  let position = 0;
  const tracked = stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let c = chunk;
        const known = bases.get(c.buffer);
        if (known !== undefined && known !== position - c.byteOffset) c = c.slice();
        bases.set(c.buffer, position - c.byteOffset);
        position += c.length;
        onChunk?.(c);
        controller.enqueue(c);
      },
    }),
  );
  const decoder = createTarDecoder({ strict: true });
  const entries = tracked.pipeThrough(decoder);
  const members: TarMember[] = [];
  const reader = entries.getReader();
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      const { header, body } = r.value;
      const isFile = header.type === undefined || header.type === 'file';
      let offset = -1;
      const bodyReader = body.getReader();
      for (;;) {
        const b = await bodyReader.read();
        if (b.done) break;
        if (offset < 0) {
          const base = bases.get(b.value.buffer);
          if (base === undefined) {
            throw new SourceFormatError(`cannot locate the data of tar member ${header.name}`);
          }
          offset = base + b.value.byteOffset;
        }
      }
      if (!isFile) continue;
      if (header.size > 0 && (offset < 0 || offset % 512 !== 0)) {
        throw new SourceFormatError(`tar member ${header.name} has no 512-aligned data offset`);
      }
      members.push({ name: header.name, offset: Math.max(offset, 0), size: header.size });
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    if (error instanceof MedFusionError) throw error; // ours, e.g. the stream's REQUEST_TIMEOUT
    if (error instanceof Error && /tar/i.test(error.message)) {
      throw new SourceFormatError(`not a valid tar shard: ${error.message}`, { cause: error });
    }
    throw error;
  }
  return members;
}

/**
 * Split a member name into WebDataset key and extension: the key is the path
 * up to the first dot of the basename (`a/b.seg.png` → `a/b`, `seg.png`).
 * Returns undefined for names without an extension.
 */
export function splitSampleName(name: string): { key: string; ext: string } | undefined {
  const slash = name.lastIndexOf('/');
  const dot = name.indexOf('.', slash + 1);
  if (dot <= slash + 1 || dot === name.length - 1) return undefined;
  return { key: name.slice(0, dot), ext: name.slice(dot + 1) };
}

/**
 * Group members into samples: consecutive members with the same key form one
 * sample. A member name repeated inside one sample (`a.png`, `a.png`) is a
 * `BAD_FORMAT` {@link SourceFormatError} naming `source` (the shard or index
 * URL), as in Python's webdataset: one of them would be dropped silently.
 */
export function groupSamples(
  members: readonly TarMember[],
  source = 'tar index',
): TarSampleEntry[] {
  const samples: TarSampleEntry[] = [];
  let current: TarSampleEntry | undefined;
  for (const m of members) {
    const parts = splitSampleName(m.name);
    if (!parts) continue;
    if (!current || current.key !== parts.key) {
      current = { key: parts.key, start: Number.POSITIVE_INFINITY, end: 0, members: [] };
      samples.push(current);
    } else {
      for (const other of current.members) {
        if (other.ext === parts.ext) {
          throw new SourceFormatError(
            `${source}: member ${m.name} appears twice in sample ${parts.key}`,
          );
        }
      }
    }
    current.members.push({ ext: parts.ext, offset: m.offset, size: m.size });
    if (m.size > 0) {
      current.start = Math.min(current.start, m.offset);
      current.end = Math.max(current.end, m.offset + m.size);
    }
  }
  for (const s of samples) if (s.end === 0) s.start = 0; // only empty members: nothing to read
  return samples;
}

/**
 * Check that `members` can be where an index says they are in a tar file:
 * every member with data starts on a 512-byte boundary, after the previous
 * member's padded data and its own 512-byte header (so no member covers
 * another's bytes or a header, and entries are in archive order), and ends
 * within `size` when the object's size is known. Throws a `BAD_FORMAT`
 * {@link SourceFormatError} naming `source` and the entry.
 */
export function checkTarMembers(
  members: readonly TarMember[],
  source: string,
  size?: number,
): void {
  let free = 0; // first byte after the previous member's padded data
  let previous = -1;
  for (let i = 0; i < members.length; i++) {
    const m = members[i] as TarMember;
    if (m.size === 0) continue; // no data: its offset is never read
    const at = `${source}: entries[${i}] (${m.name})`;
    if (m.offset % 512 !== 0) {
      throw new SourceFormatError(`${at} data starts at ${m.offset}, not on a 512-byte boundary`);
    }
    if (m.offset < free + 512) {
      const after = previous < 0 ? 'the first header' : `entries[${previous}] and its header`;
      throw new SourceFormatError(
        `${at} data starts at ${m.offset}, inside ${after} (ends at ${free + 512}): entries overlap or are out of archive order`,
      );
    }
    if (size !== undefined && m.offset + m.size > size) {
      throw new SourceFormatError(
        `${at} ends at ${m.offset + m.size}, past the shard's size ${size}`,
      );
    }
    free = m.offset + Math.ceil(m.size / 512) * 512;
    previous = i;
  }
}

/** Serialize an index (for a sidecar file or a persistent store). */
export function encodeTarIndex(
  members: readonly TarMember[],
  extra: Pick<TarIndexFile, 'etag' | 'size' | 'sha256'> = {},
): Uint8Array {
  const file: TarIndexFile = {
    format: 'medfusion-tar-index',
    version: 1,
    entries: members.map((m) => [m.name, m.offset, m.size]),
    ...extra,
  };
  return new TextEncoder().encode(JSON.stringify(file));
}

/**
 * Parse and check an index written by {@link encodeTarIndex} (or by hand / another
 * tool in the same format): its shape, then {@link checkTarMembers} against the
 * `size` it records. Errors are `BAD_FORMAT` {@link SourceFormatError}s naming
 * `source` (the index URL, or which stored index).
 */
export function decodeTarIndex(
  bytes: Uint8Array | string,
  source = 'tar index',
): {
  members: TarMember[];
  file: TarIndexFile;
} {
  let file: TarIndexFile;
  try {
    file = JSON.parse(typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes));
  } catch (error) {
    throw new SourceFormatError(`${source} is not JSON: ${String(error)}`, { cause: error });
  }
  if (
    file?.format !== 'medfusion-tar-index' ||
    file.version !== 1 ||
    !Array.isArray(file.entries)
  ) {
    throw new SourceFormatError(
      `${source} must be { format: "medfusion-tar-index", version: 1, entries: [...] }`,
    );
  }
  if (file.size !== undefined && (!Number.isInteger(file.size) || file.size < 0)) {
    throw new SourceFormatError(
      `${source}: size must be a non-negative integer, got ${JSON.stringify(file.size)}`,
    );
  }
  const members: TarMember[] = [];
  for (const [i, e] of file.entries.entries()) {
    const [name, offset, size] = Array.isArray(e) ? e : [];
    if (
      typeof name !== 'string' ||
      !Number.isInteger(offset) ||
      !Number.isInteger(size) ||
      (offset as number) < 0 ||
      (size as number) < 0
    ) {
      throw new SourceFormatError(
        `${source}: entries[${i}] must be [name, offset, size], got ${JSON.stringify(e)}`,
      );
    }
    members.push({ name, offset: offset as number, size: size as number });
  }
  checkTarMembers(members, source, file.size);
  return { members, file };
}
