import type { ShardManifest, ShardManifestColumn, ShardManifestEntry } from '@medfusion/core';
import type { SampleInput } from '../input/SampleInput.js';
import type { SplitSpec } from './assignSplits.js';
import type { PackPlan } from './planShards.js';
import type { WrittenShard } from './writeShard.js';

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

/** One manifest file of a data set: its name in the output folder and its content. */
export interface ManifestFile {
  /** File name: `manifest.<split>.json`, or `manifest.json` (always the last one). */
  file: string;
  /** The manifest. */
  manifest: ShardManifest;
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

/** The bytes of a manifest file, as `medfusion pack` writes them. */
export function manifestText(manifest: ShardManifest): string {
  return `${JSON.stringify(manifest, null, 1)}\n`;
}

/**
 * The manifests of `plan` once its shards are written (`written[i]` is shard i's
 * size and sha256): one per split that has shards, then `manifest.json` last.
 */
export function buildManifests(
  plan: PackPlan,
  facts: ManifestFacts,
  written: readonly WrittenShard[],
): ManifestFile[] {
  // Counts of number labels only while they are few: else `{}` (a regression target).
  const labelCounts = (list: readonly SampleInput[]) => {
    const counts = countLabels(list);
    const many = facts.labels?.type === 'number' && Object.keys(counts).length > MAX_NUMBER_COUNTS;
    return many ? {} : counts;
  };
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
  const files: ManifestFile[] = [];
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
      files.push({ file, manifest: base(shards, inSplit) });
    }
  }
  files.push({ file: 'manifest.json', manifest });
  return files;
}
