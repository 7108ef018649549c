import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PackError } from '../PackError.js';
import type { Progress } from '../progress.js';
import { buildManifests, type ManifestFacts, type ManifestFile } from './buildManifests.js';
import type { PackPlan, PlannedShard } from './planShards.js';
import type { ScanPool } from './scanPool.js';
import { STATE_FILE, writeShards } from './writeOutput.js';
import { removeTemporaries, type WrittenShard, writeAtomic } from './writeShard.js';

/** `--part i/n`: the i-th (from 1) of n parts of one pack. */
export interface PackPart {
  /** Which part, in `[1, count]`. */
  index: number;
  /** How many parts the pack is cut into. */
  count: number;
}

/** The record a part leaves beside its shards; `medfusion merge` reads it. */
export const PART_FILE = 'medfusion-part.json';

/** What {@link PART_FILE} holds. */
export interface PartRecord {
  /** Always `medfusion-pack-part`. */
  format: 'medfusion-pack-part';
  /** Record version (2: the fingerprint is made by the merge). */
  version: 2;
  /** This part, from 1. */
  part: number;
  /** Parts of the pack. */
  parts: number;
  /** The plan's layout (the same in every part of one pack: same input listing, same arguments). */
  layout: string;
  /** The shards this part wrote (file names), in plan order. */
  shards: string[];
  /**
   * The data set's manifests as one machine would write them, except that the
   * `sha256` of a shard another part writes is `''` (its size is planned, so
   * known) and the `fingerprint` is `''` (the merge makes it from every shard's sha256).
   */
  manifests: ManifestFile[];
}

/** `2/8` → part 2 of 8. A RangeError naming `--part` and the value otherwise. */
export function parsePart(text: string): PackPart {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new RangeError(
      `--part must be i/n with 1 <= i <= n (the i-th of n parts, counted from 1, e.g. 1/4), got ${JSON.stringify(text)}`,
    );
  }
  return { index, count };
}

/**
 * The shards part `part` writes: a contiguous run, `floor((i-1)·S/n)` up to
 * `floor(i·S/n)` of the plan's S shards. Every part computes the same plan from
 * the same sorted input, so the runs of parts 1..n are the plan exactly once.
 */
export function partShards(shards: readonly PlannedShard[], part: PackPart): PlannedShard[] {
  const from = Math.floor(((part.index - 1) * shards.length) / part.count);
  const to = Math.floor((part.index * shards.length) / part.count);
  return shards.slice(from, to);
}

/** `part i/n`, as messages name a part. */
export function partName(part: PackPart): string {
  return `part ${part.index}/${part.count}`;
}

/** What a part run did. */
export interface PartResult {
  /** Samples in this part's shards. */
  samples: number;
  /** Shards this part wrote or kept. */
  shards: number;
  /** Shards kept from an earlier, interrupted run of this part. */
  resumed: number;
  /** Bytes of this part's shards. */
  bytes: number;
  /** True when the part was already complete (nothing written). */
  upToDate: boolean;
}

/**
 * Check a part's output folder: absent or empty, an unfinished run of this same
 * part (resumed), or this part complete. Anything else is a `PACK_OUTPUT` PackError.
 */
async function preparePart(
  out: string,
  plan: PackPlan,
  part: PackPart,
): Promise<'fresh' | 'resume' | 'done'> {
  await mkdir(out, { recursive: true });
  const names = await readdir(out);
  if (names.length === 0) return 'fresh';
  const read = async (name: string) => {
    try {
      return JSON.parse(await readFile(join(out, name), 'utf8'));
    } catch {
      return undefined;
    }
  };
  const same = (r: { layout?: unknown; part?: unknown; parts?: unknown } | undefined) =>
    r?.layout === plan.layout && r?.part === part.index && r?.parts === part.count;
  if (names.includes(PART_FILE)) {
    if (same(await read(PART_FILE))) return 'done';
  } else if (names.includes(STATE_FILE)) {
    if (same(await read(STATE_FILE))) return 'resume';
  } else {
    throw new PackError(
      'PACK_OUTPUT',
      out,
      `is not empty (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''}) and holds no part of ours; choose an empty --out folder`,
    );
  }
  throw new PackError(
    'PACK_OUTPUT',
    out,
    `holds another part, or a part of other input or other arguments; give ${partName(part)} its own empty --out folder`,
  );
}

/**
 * `medfusion pack --part i/n`: write only this part's shards of `plan` (see
 * {@link partShards}) into `out`, then {@link PART_FILE} last (its presence means
 * the part is complete). Reads only this part's files: the plan came from the
 * listing's names and sizes. Resumes an interrupted run of the same part.
 */
export async function packPart(
  pool: ScanPool,
  out: string,
  plan: PackPlan,
  facts: ManifestFacts,
  part: PackPart,
  progress: Progress,
  signal: AbortSignal,
): Promise<PartResult> {
  const mine = partShards(plan.shards, part);
  const result: PartResult = {
    samples: mine.reduce((a, s) => a + s.count, 0),
    shards: mine.length,
    resumed: 0,
    bytes: mine.reduce((a, s) => a + s.size, 0),
    upToDate: false,
  };
  const state = await preparePart(out, plan, part);
  if (state === 'done') return { ...result, upToDate: true };
  const names = [STATE_FILE, PART_FILE, ...mine.flatMap((s) => [s.name, `${s.name}.idx.json`])];
  await removeTemporaries(out, names);
  if (state === 'fresh') {
    const marker = {
      format: 'medfusion-pack-state',
      layout: plan.layout,
      part: part.index,
      parts: part.count,
    };
    await writeAtomic(join(out, STATE_FILE), `${JSON.stringify(marker)}\n`);
  }
  progress.phase('write', result.samples, result.bytes);
  let done: { written: WrittenShard[]; resumed: number };
  try {
    done = await writeShards(pool, out, mine, plan, state === 'resume', progress, signal);
  } catch (error) {
    await removeTemporaries(out, names).catch(() => {});
    throw error;
  }
  const byName = new Map(mine.map((s, i) => [s.name, done.written[i] as WrittenShard]));
  const written = plan.shards.map((s) => byName.get(s.name) ?? { bytes: s.size, sha256: '' });
  const record: PartRecord = {
    format: 'medfusion-pack-part',
    version: 2,
    part: part.index,
    parts: part.count,
    layout: plan.layout,
    shards: mine.map((s) => s.name),
    manifests: buildManifests(plan, facts, written, ''),
  };
  await writeAtomic(join(out, PART_FILE), `${JSON.stringify(record)}\n`);
  await rm(join(out, STATE_FILE), { force: true });
  return { ...result, resumed: done.resumed };
}
