import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ShardManifest, ShardManifestColumn, ShardManifestEntry } from '@medfusion/core';
import type { SampleInput } from '../input/SampleInput.js';
import type { ScanPool } from '../input/scanPool.js';
import type { Progress } from '../progress.js';
import type { SplitSpec } from './assignSplits.js';
import type { PackPlan } from './planShards.js';
import { completedShard, type WrittenShard, writeAtomic, writeShard } from './writeShard.js';

/** V8's collector, exposed at run time (`--expose-gc` set from here, no command-line flag). */
let gc: (() => void) | undefined;

/**
 * A full collection before the first shard and after each one, once the heap is past 64 MB: a shard leaves
 * some megabytes of garbage (its members, layout, index, chunk requests), and V8
 * lets the old generation grow to about twice the live heap before collecting it,
 * which with 200,000 samples' records live took the resident size past 300 MB.
 * One collection a shard costs some tens of ms per 100 MB live.
 */
function collectShardGarbage(): void {
  if (process.memoryUsage().heapUsed < 64 << 20) return;
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/** Name of the file marking an unfinished pack (its plan's fingerprint). */
export const STATE_FILE = '.medfusion-pack.json';

/** What the manifests say beside the shards. */
export interface ManifestFacts {
  /** Every sample packed. */
  samples: readonly SampleInput[];
  /** Label column, its type and class names (class labels). */
  labels?: { column: string; type: 'number' | 'class'; classes?: string[] };
  /** Tabular columns. */
  columns: readonly ShardManifestColumn[];
  /** The splits, when split. */
  splits?: readonly SplitSpec[];
}

/** Most distinct number labels whose counts a manifest lists (regression targets have one per sample). */
const MAX_NUMBER_COUNTS = 1000;

/** Label counts of some samples, by label text, keys sorted. */
export function countLabels(samples: readonly SampleInput[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const s of samples)
    if (s.label !== undefined) counts.set(s.label, (counts.get(s.label) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/**
 * Write the shards of `plan` into `out` (keeping those an earlier run of the same
 * plan completed when `resume`), then each split's manifest, then `manifest.json`
 * last, and remove the unfinished-pack marker. Returns the shards written or kept.
 */
export async function writeOutput(
  pool: ScanPool,
  out: string,
  plan: PackPlan,
  facts: ManifestFacts,
  resume: boolean,
  progress: Progress,
  signal: AbortSignal,
): Promise<{ written: WrittenShard[]; resumed: number }> {
  let resumed = 0;
  // Counts of number labels only while they are few: else `{}` (a regression target).
  const labelCounts = (list: readonly SampleInput[]) => {
    const counts = countLabels(list);
    const many = facts.labels?.type === 'number' && Object.keys(counts).length > MAX_NUMBER_COUNTS;
    return many ? {} : counts;
  };
  const written: WrittenShard[] = [];
  collectShardGarbage(); // the scan's and the plan's
  for (const shard of plan.shards) {
    signal.throwIfAborted();
    const done = resume ? await completedShard(out, shard) : undefined;
    if (done) {
      resumed++;
      progress.tick(shard.samples.length, shard.size);
      written.push(done);
      continue;
    }
    written.push(
      await writeShard(pool, out, shard, plan.membersOf, signal, (samples, bytes) =>
        progress.tick(samples, bytes),
      ),
    );
    progress.note(`wrote ${shard.name} (${shard.samples.length} samples)`);
    collectShardGarbage();
  }
  const entries: ShardManifestEntry[] = plan.shards.map((s, i) => {
    const w = written[i] as WrittenShard;
    const e: ShardManifestEntry = {
      url: s.name,
      samples: s.samples.length,
      bytes: w.bytes,
      sha256: w.sha256,
    };
    if (s.split !== undefined) e.split = s.split;
    return e;
  });
  const base = (shards: ShardManifestEntry[], counted: readonly SampleInput[]): ShardManifest => {
    const m: ShardManifest = {
      format: 'medfusion-shards',
      version: 1,
      count: counted.length,
      fingerprint: plan.fingerprint,
      shards,
    };
    if (facts.labels) {
      m.labels = {
        column: facts.labels.column,
        type: facts.labels.type,
        counts: labelCounts(counted),
      };
      if (facts.labels.classes) m.labels.classes = facts.labels.classes;
    }
    if (facts.columns.length > 0) m.columns = [...facts.columns];
    return m;
  };
  const manifest = base(entries, facts.samples);
  if (facts.splits) {
    manifest.splits = {};
    for (const sp of facts.splits) {
      const shards = entries.filter((e) => e.split === sp.name);
      const inSplit = plan.shards.filter((s) => s.split === sp.name).flatMap((s) => s.samples);
      const file = `manifest.${sp.name}.json`;
      manifest.splits[sp.name] = {
        samples: inSplit.length,
        shards: shards.length,
        labels: labelCounts(inSplit),
      };
      if (shards.length === 0) continue;
      (manifest.splits[sp.name] as { manifest?: string }).manifest = file;
      await writeAtomic(join(out, file), `${JSON.stringify(base(shards, inSplit), null, 1)}\n`);
    }
  }
  // Written last: a manifest.json means every shard it lists is complete.
  await writeAtomic(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  await rm(join(out, STATE_FILE), { force: true });
  return { written, resumed };
}
