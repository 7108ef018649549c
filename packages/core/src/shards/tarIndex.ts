import { SourceFormatError } from '../errors.js';

// The WebDataset shard index format, one definition for its writers (the
// `medfusion` CLI, the demo's generator) and its readers (web's WebDatasetSource).

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
