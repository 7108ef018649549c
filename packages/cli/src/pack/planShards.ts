import { createHash } from 'node:crypto';
import type { ShardManifestColumn } from '@medfusion/core';
import { KIND_CODES, type SampleTable } from '../input/SampleTable.js';
import { PackError } from '../PackError.js';
import { assignSplits, type SplitSpec } from './assignSplits.js';
import { checkKeys } from './checkKeys.js';
import type { DecodeOptions } from './decodePixels.js';
import { npySize } from './npy.js';
import { seededRank, seededRank53, sortByRank } from './rank.js';

/** How `medfusion pack` cuts and orders the data set (the arguments that change the bytes). */
export interface PackLayoutOptions {
  /** Target shard size in bytes (a shard holds at least one sample). */
  targetShardBytes: number;
  /** Samples per shard instead of a size, when set. */
  samplesPerShard?: number;
  /** Shuffle the samples (seeded) instead of keeping the input order. */
  shuffle: boolean;
  /** Seed of the shuffle and of the split. */
  seed: number;
  /** The splits, when `--split` is given. */
  splits?: SplitSpec[];
  /** DICOM keywords stored in each sample's `.json`. */
  keepTags: string[];
  /** Store decoded pixels (`<key>.npy`) instead of the image file. */
  decode?: DecodeOptions;
}

/** One member of a planned sample: its name, size, and its bytes unless it is the image file. */
export interface PlannedMember {
  /** Member name in the tar (`<key>.<ext>`). */
  name: string;
  /** Size in bytes. */
  size: number;
  /** The text of a `.cls` / `.json` member, written as UTF-8 (the image is read from the sample's file). */
  body?: string;
  /** Decode the image file into this member (`--decode`). */
  decode?: DecodeOptions;
}

/** One shard as planned: its name, its run of the plan's order, its size. */
export interface PlannedShard {
  /** File name, e.g. `train-000000.tar`. */
  name: string;
  /** Split name, or undefined when the data set is not split. */
  split?: string;
  /** Where its samples start in {@link PackPlan.order}. */
  first: number;
  /** How many samples it holds (`order[first .. first + count)`). */
  count: number;
  /** Size of the shard in bytes. */
  size: number;
}

/** What the packer will write: shards, the samples' order, and the layout's identity. */
export interface PackPlan {
  /** The table the samples are indices of. */
  table: SampleTable;
  /** Table indices of the packed samples, shard after shard. */
  order: Uint32Array;
  /** The shards, split by split, in order. */
  shards: PlannedShard[];
  /**
   * Hex sha256 of the layout options and every sample's members (names, sizes,
   * labels, fields): what every part of one pack agrees on, known before any
   * file is read. The data set's fingerprint is made from it and the shards'
   * sha256 once they are written (see `dataSetFingerprint`).
   */
  layout: string;
  /** A sample's members, as planned (made again when its shard is written: nothing per member is kept). */
  membersOf(sample: number): PlannedMember[];
}

/** Bytes a sample of these members takes in a tar: a header block and the padded data each. */
function tarBytes(members: readonly PlannedMember[]): number {
  return members.reduce((a, m) => a + 512 + Math.ceil(m.size / 512) * 512, 0);
}

/**
 * `--decode` needs, without `--size`, images all of one size (a batch needs one
 * shape). A `PACK_INPUT` PackError names the first file that breaks the rule.
 */
function checkDecodable(table: SampleTable, samples: Uint32Array): void {
  const { width, height } = table;
  if (!width || !height || samples.length === 0) return;
  const f = samples[0] as number;
  for (const i of samples) {
    if (width[i] !== width[f] || height[i] !== height[f]) {
      throw new PackError(
        'PACK_INPUT',
        table.source(i),
        `is ${width[i]}x${height[i]}, ${table.source(f)} is ${width[f]}x${height[f]}: images of mixed sizes need --size WxH with --decode`,
      );
    }
  }
}

/**
 * Plan the shards of a listed table from names and sizes alone: check keys are
 * unique, assign splits, order each split (input order, or seeded shuffle), and
 * cut shards by size or count. `classes` (label text → class index) makes `.cls`
 * hold the index. Samples of kind 0 (not images) are left out. Held per sample:
 * the order (4 bytes; the key check holds 8 more before it is made); a shuffle
 * or split holds some more while it sorts.
 */
export function planShards(
  table: SampleTable,
  options: PackLayoutOptions,
  classes: Map<string, number> | undefined,
  columns: readonly ShardManifestColumn[],
): PackPlan {
  let packed = 0;
  for (let i = 0; i < table.count; i++) if (table.kind[i] !== 0) packed++;
  const samples = new Uint32Array(packed);
  for (let i = 0, k = 0; i < table.count; i++) if (table.kind[i] !== 0) samples[k++] = i;
  checkKeys(table, samples);
  if (options.decode) checkDecodable(table, samples);
  // Per label (a few, or a few thousand), not per sample: the `.cls` body, its size, its layout text.
  const labelTexts = table.labels.values;
  const clsBodies = labelTexts.map((l) => (classes ? String(classes.get(l)) : l));
  const clsSizes = clsBodies.map((b) => Buffer.byteLength(b));
  const labelJson = labelTexts.map((l) => JSON.stringify(l));
  const membersWith = (i: number, key: string, labelId = table.labelId(i)): PlannedMember[] => {
    const kind = KIND_CODES[table.kind[i] as number] as string;
    const members: PlannedMember[] = [];
    const decode = options.decode;
    if (decode) {
      const shape = [
        decode.height ?? (table.height?.[i] as number),
        decode.width ?? (table.width?.[i] as number),
        decode.channels,
      ];
      // DICOM: rescaled values as float32; PNG/JPEG: uint8 pixels.
      const size = npySize(shape, kind === 'dcm' ? '<f4' : '|u1');
      members.push({ name: `${key}.npy`, size, decode });
    } else {
      members.push({ name: `${key}.${kind}`, size: table.size[i] as number });
    }
    if (labelId >= 0) {
      const body = clsBodies[labelId] as string;
      members.push({ name: `${key}.cls`, size: clsSizes[labelId] as number, body });
    }
    const fields = table.fields(i);
    if (fields !== '') {
      members.push({ name: `${key}.json`, size: Buffer.byteLength(fields), body: fields });
    }
    return members;
  };
  const membersOf = (i: number): PlannedMember[] => membersWith(i, table.key(i));
  const splitOf = options.splits
    ? assignSplits(table, samples, options.splits, options.seed)
    : undefined;
  const groups = options.splits ? options.splits.map((s) => s.name) : [undefined];
  // Without splits the order is the samples' array, ordered in place (4 bytes a sample less).
  const order = splitOf ? new Uint32Array(packed) : samples;
  const shards: PlannedShard[] = [];
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({
      format: 'medfusion-pack',
      version: 2,
      options,
      columns,
      classes: classes ? [...classes] : null,
    }),
  );
  let at = 0;
  let pending = ''; // layout text not hashed yet (hashed in 64 kB pieces)
  groups.forEach((split, splitIndex) => {
    const start = at;
    if (!splitOf) at = packed;
    else for (const i of samples) if (splitOf[i] === splitIndex) order[at++] = i;
    const list = order.subarray(start, at);
    if (options.shuffle) {
      const ranks = new Float64Array(table.count);
      for (const i of list) ranks[i] = seededRank53(options.seed, table.key(i));
      sortByRank(list, ranks, (i) => seededRank(options.seed, table.key(i)));
    }
    const prefix = split ?? 'data';
    let count = 0;
    let current: PlannedShard | undefined;
    let bytes = 0;
    for (let k = start; k < at; k++) {
      const i = order[k] as number;
      const key = table.key(i);
      const labelId = table.labelId(i);
      const members = membersWith(i, key, labelId);
      const size = tarBytes(members);
      const full =
        current &&
        (options.samplesPerShard !== undefined
          ? current.count >= options.samplesPerShard
          : bytes + size + 1024 > options.targetShardBytes);
      if (!current || full) {
        current = {
          name: `${prefix}-${String(count++).padStart(6, '0')}.tar`,
          first: k,
          count: 0,
          size: 1024,
        };
        if (split !== undefined) current.split = split;
        shards.push(current);
        bytes = 0;
        pending += `${current.name}\n`;
      }
      current.count++;
      current.size += size;
      bytes += size;
      // Member names are plain ustar names (no tab, no newline): one line per sample.
      for (const m of members) pending += `${m.name}\t${m.size}\t`;
      pending += `${labelId < 0 ? '' : labelJson[labelId]}\t${table.fields(i)}\n`;
      if (pending.length > 1 << 16) {
        hash.update(pending);
        pending = '';
      }
    }
  });
  hash.update(pending);
  return { table, order, shards, layout: hash.digest('hex'), membersOf };
}
