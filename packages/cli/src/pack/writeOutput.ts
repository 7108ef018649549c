import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Progress } from '../progress.js';
import { buildManifests, type ManifestFacts, manifestText } from './buildManifests.js';
import type { PackPlan, PlannedShard } from './planShards.js';
import type { ScanPool } from './scanPool.js';
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

/** Let go of the kept scan bytes of a shard's samples (a shard this run does not write). */
export function dropKept(shard: PlannedShard): void {
  for (const s of shard.samples) s.bytes = undefined;
}

/** Name of the file marking an unfinished pack (its plan's fingerprint). */
export const STATE_FILE = '.medfusion-pack.json';

/**
 * Write `shards` into `out` (keeping those an earlier run of the same plan
 * completed when `resume`), their tar assembled by `pool`'s workers. Returns each
 * shard's size and sha256, in order.
 */
export async function writeShards(
  pool: ScanPool,
  out: string,
  shards: readonly PlannedShard[],
  membersOf: PackPlan['membersOf'],
  resume: boolean,
  progress: Progress,
  signal: AbortSignal,
): Promise<{ written: WrittenShard[]; resumed: number }> {
  let resumed = 0;
  const written: WrittenShard[] = [];
  collectShardGarbage(); // the scan's and the plan's
  for (const shard of shards) {
    signal.throwIfAborted();
    const done = resume ? await completedShard(out, shard) : undefined;
    if (done) {
      dropKept(shard);
      resumed++;
      progress.tick(shard.samples.length, shard.size);
      written.push(done);
      continue;
    }
    written.push(
      await writeShard(pool, out, shard, membersOf, signal, (samples, bytes) =>
        progress.tick(samples, bytes),
      ),
    );
    progress.note(`wrote ${shard.name} (${shard.samples.length} samples)`);
    collectShardGarbage();
  }
  return { written, resumed };
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
  const done = await writeShards(pool, out, plan.shards, plan.membersOf, resume, progress, signal);
  // manifest.json comes last: a manifest.json means every shard it lists is complete.
  for (const { file, manifest } of buildManifests(plan, facts, done.written))
    await writeAtomic(join(out, file), manifestText(manifest));
  await rm(join(out, STATE_FILE), { force: true });
  return done;
}
