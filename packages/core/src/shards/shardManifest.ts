import { SourceFormatError } from '../errors.js';

/** One shard in a manifest. */
export interface ShardManifestEntry {
  /** Shard URL, absolute or relative to the manifest. */
  url: string;
  /** Number of samples in the shard; when every shard has it, indices load lazily per shard. */
  samples?: number;
  /** Hex sha256 of the whole shard, verified (WebCrypto) the first time the shard is streamed. */
  sha256?: string;
  /** URL of a sidecar index for this shard (relative to the manifest), overriding `sidecar`. */
  index?: string;
  /** Size of the shard in bytes (written by `medfusion pack`; readers do not need it). */
  bytes?: number;
  /** The split the shard belongs to (`train`, `val`, ...), when the data set is split. */
  split?: string;
}

/** A column of the packed samples' tabular data, as `medfusion pack` found it. */
export interface ShardManifestColumn {
  /** Column name (the key in each sample's `.json` member). */
  name: string;
  /** `number` when every value is a number, else `string`. */
  type: 'number' | 'string';
}

/** One split of a packed data set. */
export interface ShardManifestSplit {
  /** Samples in the split. */
  samples: number;
  /** Shards of the split. */
  shards: number;
  /** Samples per label value (the `.cls` member's text). */
  labels: Record<string, number>;
  /** The manifest file listing only this split's shards, relative to this manifest (absent for an empty split). */
  manifest?: string;
}

/**
 * A JSON manifest: `{ "shards": [{ "url": "train-000000.tar", "samples": 1000, "sha256": "…" }, …] }`.
 * Only `shards` is read by the library's shard source; `medfusion pack` adds the
 * other fields, which describe the data set.
 */
export interface ShardManifest {
  /** The shards, in order; sample indices are numbered shard by shard. */
  shards: ShardManifestEntry[];
  /** `'medfusion-shards'` in manifests `medfusion pack` writes. */
  format?: 'medfusion-shards';
  /** Format version of a `medfusion-shards` manifest: 1. */
  version?: 1;
  /** Total number of samples. */
  count?: number;
  /** Hex sha256 over the packing options and every shard's sha256: equal fingerprints, equal bytes. */
  fingerprint?: string;
  /**
   * The label column and how many samples hold each label value; for class labels,
   * `classes` lists the class names by the index a `.cls` member holds.
   */
  labels?: {
    column: string;
    type: 'number' | 'class';
    counts: Record<string, number>;
    classes?: string[];
  };
  /** The tabular columns stored in each sample's `.json` member. */
  columns?: ShardManifestColumn[];
  /** The splits, by name, when the data set is split. */
  splits?: Record<string, ShardManifestSplit>;
  /** Samples per shard when shards were cut by count (the demo's generator). */
  samplesPerShard?: number;
  /** The tabular columns' mean and standard deviation (the demo's generator). */
  tabular?: { columns: string[]; mean: number[]; std: number[] };
}

/**
 * Parse a manifest's text and check its shape: JSON, with a non-empty `shards`
 * array (each entry is checked by {@link checkShardManifestEntry}). Errors are
 * `BAD_FORMAT` {@link SourceFormatError}s naming `source`.
 */
export function parseShardManifest(text: string, source: string): ShardManifest {
  let manifest: ShardManifest;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    const html = /^\s*</.test(text) ? ' but an HTML page (a single-page-app fallback?)' : '';
    throw new SourceFormatError(`manifest ${source} is not JSON${html}`, { cause: error });
  }
  if (!manifest || !Array.isArray(manifest.shards) || manifest.shards.length === 0) {
    throw new SourceFormatError(
      `manifest ${source} must be { "shards": [{ "url": ... }, ...] } with at least one shard`,
    );
  }
  return manifest;
}

/**
 * Check the fields of `shards[i]` of a manifest: `url` a string, `samples` a
 * non-negative integer, `sha256` 64 hex digits, `index` a non-empty string
 * (where the URLs may point is the reader's concern). Throws a `BAD_FORMAT`
 * {@link SourceFormatError} naming `source` and the field.
 */
export function checkShardManifestEntry(e: ShardManifestEntry, i: number, source: string): void {
  if (!e || typeof e.url !== 'string') {
    throw new SourceFormatError(`manifest ${source}: shards[${i}].url must be a string`);
  }
  const samples = e.samples;
  if (samples !== undefined && (!Number.isInteger(samples) || samples < 0)) {
    throw new SourceFormatError(
      `manifest ${source}: shards[${i}].samples must be a non-negative integer, got ${samples}`,
    );
  }
  if (
    e.sha256 !== undefined &&
    (typeof e.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(e.sha256))
  ) {
    throw new SourceFormatError(
      `manifest ${source}: shards[${i}].sha256 must be 64 hex digits, got ${JSON.stringify(e.sha256)}`,
    );
  }
  if (e.index !== undefined && (typeof e.index !== 'string' || e.index === '')) {
    throw new SourceFormatError(
      `manifest ${source}: shards[${i}].index must be a non-empty string, got ${JSON.stringify(e.index)}`,
    );
  }
}
