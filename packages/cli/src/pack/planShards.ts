import { createHash } from 'node:crypto';
import type { ShardManifestColumn } from '@medfusion/core';
import { checkUniqueKeys } from '@medfusion/core/internal';
import type { SampleInput } from '../input/SampleInput.js';
import { PackError } from '../PackError.js';
import { assignSplits, type SplitSpec, seededRank } from './assignSplits.js';
import type { DecodeOptions } from './decodePixels.js';
import { npySize } from './npy.js';

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
  /** The bytes of a `.cls` / `.json` member (the image is read from `sample.path`). */
  body?: Uint8Array;
  /** Decode the image file into this member (`--decode`). */
  decode?: DecodeOptions;
}

/** One shard as planned: its name, samples and their members' layout. */
export interface PlannedShard {
  /** File name, e.g. `train-000000.tar`. */
  name: string;
  /** Split name, or undefined when the data set is not split. */
  split?: string;
  /** The samples, in shard order (their members come from {@link PackPlan.membersOf} when written). */
  samples: SampleInput[];
  /** Size of the shard in bytes. */
  size: number;
}

/** What the packer will write: shards and the fingerprint naming this exact output. */
export interface PackPlan {
  /** The shards, split by split, in order. */
  shards: PlannedShard[];
  /** Hex sha256 of the layout options and every sample's members (names, sizes, content hashes). */
  fingerprint: string;
  /** A sample's members, as planned (made again when its shard is written: nothing per member is kept). */
  membersOf(sample: SampleInput): PlannedMember[];
}

const text = new TextEncoder();

/** The members of one sample: image, then `.cls` (label), then `.json` (fields), as present. */
function membersOf(
  s: SampleInput,
  classIndex: Map<string, number> | undefined,
  decode: DecodeOptions | undefined,
): PlannedMember[] {
  const members: PlannedMember[] = [];
  if (decode) {
    const shape = [
      decode.height ?? (s.height as number),
      decode.width ?? (s.width as number),
      decode.channels,
    ];
    // DICOM: rescaled values as float32; PNG/JPEG: uint8 pixels.
    const size = npySize(shape, s.kind === 'dcm' ? '<f4' : '|u1');
    members.push({ name: `${s.key}.npy`, size, decode });
  } else {
    members.push({ name: `${s.key}.${s.kind}`, size: s.size as number });
  }
  if (s.label !== undefined) {
    const value = classIndex ? String(classIndex.get(s.label)) : s.label;
    const body = text.encode(value);
    members.push({ name: `${s.key}.cls`, size: body.length, body });
  }
  if (s.fields && Object.keys(s.fields).length > 0) {
    const body = text.encode(JSON.stringify(s.fields));
    members.push({ name: `${s.key}.json`, size: body.length, body });
  }
  return members;
}

/**
 * Plan the shards of scanned samples: check keys are unique, assign splits,
 * order each split (input order, or seeded shuffle), and cut shards by size or
 * count. `classes` (label text → class index) makes `.cls` hold the index.
 * Duplicate keys are a `PACK_INPUT` PackError naming both files.
 */
export function planShards(
  samples: readonly SampleInput[],
  options: PackLayoutOptions,
  classes: Map<string, number> | undefined,
  columns: readonly ShardManifestColumn[],
): PackPlan {
  checkUniqueKeys(samples, (s, message) => {
    throw new PackError('PACK_INPUT', s.source, message);
  });
  const splitOf = options.splits ? assignSplits(samples, options.splits, options.seed) : undefined;
  const groups = options.splits ? options.splits.map((s) => s.name) : [undefined];
  const shards: PlannedShard[] = [];
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({
      format: 'medfusion-pack',
      version: 1,
      options,
      columns,
      classes: classes ? [...classes] : null,
    }),
  );
  for (const split of groups) {
    let list = samples.filter((_, i) => split === undefined || splitOf?.[i] === split);
    if (options.shuffle) {
      const ranked = list.map((s) => ({ s, r: seededRank(options.seed, s.key) }));
      ranked.sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0));
      list = ranked.map((x) => x.s);
    }
    const prefix = split ?? 'data';
    let count = 0;
    let current: PlannedShard | undefined;
    let bytes = 0;
    for (const sample of list) {
      const members = membersOf(sample, classes, options.decode);
      const size = members.reduce((a, m) => a + 512 + Math.ceil(m.size / 512) * 512, 0);
      const full =
        current &&
        (options.samplesPerShard !== undefined
          ? current.samples.length >= options.samplesPerShard
          : bytes + size + 1024 > options.targetShardBytes);
      if (!current || full) {
        current = {
          name: `${prefix}-${String(count++).padStart(6, '0')}.tar`,
          samples: [],
          size: 1024,
        };
        if (split !== undefined) current.split = split;
        shards.push(current);
        bytes = 0;
      }
      current.samples.push(sample);
      current.size += size;
      bytes += size;
      hash.update(
        JSON.stringify([
          current.name,
          members.map((m) => [m.name, m.size]),
          sample.sha256,
          sample.label ?? null,
          sample.fields ?? null,
        ]),
      );
    }
  }
  const membersOfSample = (s: SampleInput) => membersOf(s, classes, options.decode);
  return { shards, fingerprint: hash.digest('hex'), membersOf: membersOfSample };
}
