import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Progress } from '../progress.js';
import { buildManifests, type ManifestFacts, manifestText } from './buildManifests.js';
import type { PackPlan, PlannedShard } from './planShards.js';
import { completedShard, type WrittenShard, writeAtomic, writeShard } from './writeShard.js';

/** Name of the file marking an unfinished pack (its plan's fingerprint). */
export const STATE_FILE = '.medfusion-pack.json';

/**
 * Write `shards` into `out` (keeping those an earlier run of the same plan
 * completed when `resume`). Returns each shard's size and sha256, in order.
 */
export async function writeShards(
  out: string,
  shards: readonly PlannedShard[],
  membersOf: PackPlan['membersOf'],
  resume: boolean,
  progress: Progress,
  signal: AbortSignal,
): Promise<{ written: WrittenShard[]; resumed: number }> {
  let resumed = 0;
  const written: WrittenShard[] = [];
  for (const shard of shards) {
    signal.throwIfAborted();
    const done = resume ? await completedShard(out, shard) : undefined;
    if (done) {
      resumed++;
      progress.tick(shard.samples.length, shard.size);
      written.push(done);
      continue;
    }
    written.push(
      await writeShard(out, shard, membersOf, signal, (bytes) => progress.tick(1, bytes)),
    );
    progress.note(`wrote ${shard.name} (${shard.samples.length} samples)`);
  }
  return { written, resumed };
}

/**
 * Write the shards of `plan` into `out` (keeping those an earlier run of the same
 * plan completed when `resume`), then each split's manifest, then `manifest.json`
 * last, and remove the unfinished-pack marker. Returns the shards written or kept.
 */
export async function writeOutput(
  out: string,
  plan: PackPlan,
  facts: ManifestFacts,
  resume: boolean,
  progress: Progress,
  signal: AbortSignal,
): Promise<{ written: WrittenShard[]; resumed: number }> {
  const done = await writeShards(out, plan.shards, plan.membersOf, resume, progress, signal);
  // manifest.json comes last: a manifest.json means every shard it lists is complete.
  for (const { file, manifest } of buildManifests(plan, facts, done.written))
    await writeAtomic(join(out, file), manifestText(manifest));
  await rm(join(out, STATE_FILE), { force: true });
  return done;
}
