import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Progress } from '../progress.js';
import { buildManifests, type ManifestFacts, manifestText } from './buildManifests.js';
import { dataSetFingerprint } from './fingerprint.js';
import type { PackPlan, PlannedShard } from './planShards.js';
import type { ScanPool } from './scanPool.js';
import { completedShard, type WrittenShard, writeAtomic, writeShard } from './writeShard.js';

/** Name of the file marking an unfinished pack (its plan's layout). */
export const STATE_FILE = '.medfusion-pack.json';

/**
 * Write `shards` of `plan` into `out` (keeping those an earlier run of the same
 * plan completed when `resume`), their tar assembled by `pool`'s workers. Returns
 * each shard's size and sha256, in order.
 */
export async function writeShards(
  pool: ScanPool,
  out: string,
  shards: readonly PlannedShard[],
  plan: PackPlan,
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
      progress.tick(shard.count, shard.size);
      written.push(done);
      continue;
    }
    written.push(
      await writeShard(pool, out, shard, plan, signal, (samples, bytes) =>
        progress.tick(samples, bytes),
      ),
    );
    progress.note(`wrote ${shard.name} (${shard.count} samples)`);
  }
  return { written, resumed };
}

/**
 * Write the shards of `plan` into `out` (keeping those an earlier run of the same
 * plan completed when `resume`), then each split's manifest, then `manifest.json`
 * last, and remove the unfinished-pack marker. Returns the shards written or kept
 * and the data set's fingerprint.
 */
export async function writeOutput(
  pool: ScanPool,
  out: string,
  plan: PackPlan,
  facts: ManifestFacts,
  resume: boolean,
  progress: Progress,
  signal: AbortSignal,
): Promise<{ written: WrittenShard[]; resumed: number; fingerprint: string }> {
  const done = await writeShards(pool, out, plan.shards, plan, resume, progress, signal);
  const fingerprint = dataSetFingerprint(
    plan.layout,
    plan.shards.map((s, i) => ({ name: s.name, ...(done.written[i] as WrittenShard) })),
  );
  // manifest.json comes last: a manifest.json means every shard it lists is complete.
  for (const { file, manifest } of buildManifests(plan, facts, done.written, fingerprint))
    await writeAtomic(join(out, file), manifestText(manifest));
  await rm(join(out, STATE_FILE), { force: true });
  return { ...done, fingerprint };
}
