import type { ShardLayout, TarMember, TarSampleEntry } from '@medfusion/core';
import { mergeRanges } from '@medfusion/core';
import {
  checkUstarHeader,
  isPlainUstarName,
  paddedSize,
  TAR_BLOCK,
} from '@medfusion/core/internal';
import { ChecksumMismatchError } from '../../remote/RemoteError.js';
import { sha256Hex } from '../../remote/sha256.js';
import type { ShardIndexLoader } from './ShardIndexLoader.js';
import type { Shard, ShardTable } from './shardManifest.js';
import type { SampleRange } from './webDatasetOptions.js';

// How the read-ahead turns wanted samples into reads of one shard, and cuts
// (and checks) each sample out of what came back. A shard whose index came from
// a sidecar the manifest's sha256 does not cover (`Shard.checkHeaders`) is read
// with each sample's tar headers, and every header is checked against the index
// before a byte of the sample is returned; a shard read whole is checked against
// its sha256 when the manifest gives one.

/** The wanted samples of one shard, with the index they were planned from. */
export interface ShardRanges {
  /** The shard's position in the table. */
  s: number;
  /** The shard. */
  shard: Shard;
  /** Its samples, in archive order (kept here: the loader may drop its copy). */
  samples: TarSampleEntry[];
  /** Byte ranges to read, one per wanted sample with bytes (headers included when checked). */
  ranges: SampleRange[];
}

/** A read of one shard: `[start, end)`, the samples it covers, and whether it is the whole shard. */
export interface ShardRead {
  start: number;
  end: number;
  parts: SampleRange[];
  whole: boolean;
}

/**
 * Whether `members` are exactly a plain ustar archive's (plain names, each
 * header right after the previous member's padded data, the first at 0) that
 * fits in `size`: then a member's header sits at `offset - 512`, no member can
 * be left out between two others without a header no longer matching, and
 * checking the headers of what is read checks the index.
 */
export function isPlainLayout(members: readonly TarMember[], size: number | undefined): boolean {
  let at = 0;
  for (const m of members) {
    if (!isPlainUstarName(m.name) || m.offset !== at + TAR_BLOCK) return false;
    at = m.offset + paddedSize(m.size);
  }
  return size === undefined || at + 2 * TAR_BLOCK <= size;
}

/** First byte of a sample's read: its data, or its first member's header when checked. */
function readStart(e: TarSampleEntry, checked: boolean): number {
  if (!checked) return e.start;
  let lo = Number.POSITIVE_INFINITY;
  for (const m of e.members) lo = Math.min(lo, m.offset - TAR_BLOCK);
  return lo;
}

/** One past a sample's read: its data's end, or past its last header when checked. */
function readEnd(e: TarSampleEntry, checked: boolean): number {
  if (!checked) return e.end;
  let hi = e.end;
  for (const m of e.members) hi = Math.max(hi, m.offset);
  return hi;
}

/** `indices` grouped by shard, in order of first appearance. */
export function groupByShard(
  indices: readonly number[],
  layout: ShardLayout,
): Map<number, number[]> {
  const byShard = new Map<number, number[]>();
  for (const idx of indices) {
    const s = layout.shardOf(idx);
    let l = byShard.get(s);
    if (!l) {
      l = [];
      byShard.set(s, l);
    }
    l.push(idx);
  }
  return byShard;
}

/** Byte ranges of `idxs`, all in shard `s` (samples with no bytes left out; maybe none). */
export async function rangesOfShard(
  s: number,
  idxs: readonly number[],
  layout: ShardLayout,
  shards: ShardTable,
  loader: ShardIndexLoader,
  signal: AbortSignal | undefined,
): Promise<ShardRanges> {
  const samples = await loader.shardIndex(s, signal);
  const shard = shards.shard(s);
  const checked = shard.checkHeaders === true;
  const first = layout.start(s);
  const ranges: SampleRange[] = [];
  for (const idx of idxs) {
    const e = samples[idx - first] as TarSampleEntry;
    if (e.end > e.start) {
      ranges.push({
        index: idx,
        url: shard.url,
        start: readStart(e, checked),
        end: readEnd(e, checked),
      });
    }
  }
  return { s, shard, samples, ranges };
}

/** Byte ranges of `indices`, by shard (their indices loaded at once; shards with nothing to read left out). */
export async function shardRanges(
  indices: readonly number[],
  layout: ShardLayout,
  shards: ShardTable,
  loader: ShardIndexLoader,
  signal: AbortSignal | undefined,
): Promise<ShardRanges[]> {
  const groups = [...groupByShard(indices, layout)];
  const all = await Promise.all(
    groups.map(([s, idxs]) => rangesOfShard(s, idxs, layout, shards, loader, signal)),
  );
  return all.filter((sr) => sr.ranges.length > 0);
}

/**
 * The reads for one shard's wanted samples: the whole shard in one request when
 * it must be checked first (`checkHeaders`, not yet `verified`), or when they are
 * at least `wholeShare` of its samples and it fits in `maxRequestBytes`; else
 * merged range requests.
 */
export function planShardReads(
  sr: ShardRanges,
  limits: { maxGap: number; maxRequestBytes: number; wholeShare: number },
): ShardRead[] {
  const size = sr.shard.reader.size;
  const mustCheck = sr.shard.checkHeaders === true && !sr.shard.verified;
  if (
    size !== undefined &&
    (mustCheck ||
      (size <= limits.maxRequestBytes && sr.ranges.length >= limits.wholeShare * sr.samples.length))
  ) {
    return [{ start: 0, end: size, parts: sr.ranges, whole: true }];
  }
  return mergeRanges(sr.ranges, limits).map((m) => ({ ...m, whole: false }));
}

/**
 * Check a whole shard's bytes against the manifest's sha256 (when it gives one)
 * and, when its index came from an unchecked sidecar, every sample's headers
 * against the index; then the shard is `verified`.
 */
export async function checkWholeShard(
  shard: Shard,
  samples: readonly TarSampleEntry[],
  bytes: Uint8Array,
): Promise<void> {
  if (shard.verified) return;
  if (shard.sha256) {
    const actual = await sha256Hex(bytes);
    if (actual !== shard.sha256) throw new ChecksumMismatchError(shard.url, shard.sha256, actual);
  }
  if (shard.checkHeaders) for (const e of samples) cutSample(e, bytes, 0, true, shard.url);
  shard.verified = true;
}

/**
 * Sample `e`'s bytes (from its first member's data) out of `bytes`, which hold the
 * shard from byte `at`; when `checked`, each member's tar header must say the
 * name and size the index gives (a `BAD_FORMAT` SourceFormatError naming the shard if not).
 */
export function cutSample(
  e: TarSampleEntry,
  bytes: Uint8Array,
  at: number,
  checked: boolean,
  url: string,
): Uint8Array {
  if (checked) {
    for (const m of e.members) {
      checkUstarHeader(bytes, m.offset - TAR_BLOCK - at, e.key, m.size, url, at, m.ext);
    }
  }
  return bytes.subarray(e.start - at, e.end - at);
}

/**
 * Whether read `m` must be held as one buffer of the whole range: a whole read of a
 * shard not yet verified against its sha256 or its headers ({@link checkWholeShard}).
 * Any other read can be cut into a buffer per sample as it arrives.
 */
export function needsWholeBytes(shard: Shard, m: ShardRead): boolean {
  return m.whole && !shard.verified && (shard.sha256 !== undefined || shard.checkHeaders === true);
}

/**
 * The samples of `sr`'s shard a read of `[m.start, m.end)` covers whole (headers
 * included when checked) that the plan wants soon (`upcoming`: index → plan
 * position) and `skip` does not exclude, as ranges in archive order.
 */
export function coveredRanges(
  sr: ShardRanges,
  m: { start: number; end: number },
  first: number,
  upcoming: ReadonlyMap<number, number>,
  skip: (index: number) => boolean,
): SampleRange[] {
  const samples = sr.samples;
  const checked = sr.shard.checkHeaders === true;
  // Samples are in archive order: binary search the first starting at or after m.start.
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((samples[mid] as TarSampleEntry).start < m.start) lo = mid + 1;
    else hi = mid;
  }
  const out: SampleRange[] = [];
  for (let k = lo; k < samples.length; k++) {
    const e = samples[k] as TarSampleEntry;
    if (e.start >= m.end) break;
    if (e.end <= e.start) continue;
    const start = readStart(e, checked);
    const end = readEnd(e, checked);
    // A checked sample whose headers lie outside the read is left to be read again.
    if (start < m.start || end > m.end) continue;
    const index = first + k;
    if (!upcoming.has(index) || skip(index)) continue;
    out.push({ index, url: sr.shard.url, start, end });
  }
  return out;
}

/**
 * The pieces of one read: `wanted` (in any order: a whole shard's read keeps the
 * plan's) and `covered` (ascending by start, none of `wanted`) as one list
 * ascending by start, each sample once (a plan that repeats a sample wants it
 * twice in one read).
 */
export function piecesInOrder(
  parts: readonly SampleRange[],
  covered: readonly SampleRange[],
): SampleRange[] {
  let wanted = parts;
  for (let k = 1; k < parts.length; k++) {
    if ((parts[k] as SampleRange).start < (parts[k - 1] as SampleRange).start) {
      wanted = [...parts].sort((a, b) => a.start - b.start);
      break;
    }
  }
  const out: SampleRange[] = [];
  let i = 0;
  let j = 0;
  while (i < wanted.length || j < covered.length) {
    const x = wanted[i];
    const y = covered[j];
    const next = y === undefined || (x !== undefined && x.start <= y.start) ? x : y;
    if (next === x) i++;
    else j++;
    if (out.at(-1)?.index !== (next as SampleRange).index) out.push(next as SampleRange);
  }
  return out;
}
