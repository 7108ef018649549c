import type { ShardManifest, ShardManifestColumn, ShardManifestEntry } from '@medfusion/core';
import type { SampleTable } from '../input/SampleTable.js';
import type { SplitSpec } from './assignSplits.js';
import type { PackPlan, PlannedShard } from './planShards.js';
import type { WrittenShard } from './writeShard.js';

/** What the manifests say beside the shards. */
export interface ManifestFacts {
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

/** Label counts of the samples of `shards` (all of `order` when absent), by label text, keys sorted. */
export function countLabels(
  table: SampleTable,
  order: Uint32Array,
  shards?: readonly PlannedShard[],
): Record<string, number> {
  const byId = new Float64Array(table.labels.values.length);
  const runs = shards ?? [{ first: 0, count: order.length }];
  for (const { first, count } of runs) {
    for (let k = first; k < first + count; k++) {
      const id = table.labelId(order[k] as number);
      if (id >= 0) byId[id] = (byId[id] as number) + 1;
    }
  }
  const counts: [string, number][] = [];
  byId.forEach((n, id) => {
    if (n > 0) counts.push([table.labels.values[id] as string, n]);
  });
  return Object.fromEntries(counts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/** The bytes of a manifest file, as `medfusion pack` writes them. */
export function manifestText(manifest: ShardManifest): string {
  return `${JSON.stringify(manifest, null, 1)}\n`;
}

/**
 * The manifests of `plan` once its shards are written (`written[i]` is shard i's
 * size and sha256), with the data set's `fingerprint`: one per split that has
 * shards, then `manifest.json` last.
 */
export function buildManifests(
  plan: PackPlan,
  facts: ManifestFacts,
  written: readonly WrittenShard[],
  fingerprint: string,
): ManifestFile[] {
  // Counts of number labels only while they are few: else `{}` (a regression target).
  const labelCounts = (shards?: readonly PlannedShard[]) => {
    const counts = countLabels(plan.table, plan.order, shards);
    const many = facts.labels?.type === 'number' && Object.keys(counts).length > MAX_NUMBER_COUNTS;
    return many ? {} : counts;
  };
  const entries: ShardManifestEntry[] = plan.shards.map((s, i) => {
    const w = written[i] as WrittenShard;
    const e: ShardManifestEntry = {
      url: s.name,
      samples: s.count,
      bytes: w.bytes,
      sha256: w.sha256,
    };
    if (s.split !== undefined) e.split = s.split;
    return e;
  });
  const base = (shards: ShardManifestEntry[], counted?: readonly PlannedShard[]): ShardManifest => {
    const m: ShardManifest = {
      format: 'medfusion-shards',
      version: 1,
      count: (counted ?? plan.shards).reduce((a, s) => a + s.count, 0),
      fingerprint,
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
  const manifest = base(entries);
  if (facts.splits) {
    manifest.splits = {};
    for (const sp of facts.splits) {
      const shards = entries.filter((e) => e.split === sp.name);
      const inSplit = plan.shards.filter((s) => s.split === sp.name);
      const file = `manifest.${sp.name}.json`;
      manifest.splits[sp.name] = {
        samples: inSplit.reduce((a, s) => a + s.count, 0),
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
