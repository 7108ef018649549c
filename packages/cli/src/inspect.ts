import { checkImage } from './input/checkImage.js';
import { readNpyHeader } from './pack/npy.js';
import { openDataset } from './read/openDataset.js';
import { type ParsedSample, readShard } from './read/readShard.js';

/** A sample as `inspect` shows it: its members, label, fields and image shape. */
export interface InspectedSample {
  /** Sample key. */
  key: string;
  /** Shard it is in. */
  shard: string;
  /** Member extension → size in bytes. */
  members: Record<string, number>;
  /** The `.cls` text. */
  label?: string;
  /** The `.json` member, parsed. */
  fields?: unknown;
  /** The image's kind and size, e.g. `png 64x64`. */
  image?: string;
}

/** What `medfusion inspect` reports. */
export interface InspectResult {
  /** Where the data set is. */
  where: string;
  /** Format and version, when the manifest is one of ours. */
  format?: string;
  /** The data set's fingerprint, when known. */
  fingerprint?: string;
  /** Samples (from the manifest, else counted). */
  samples: number;
  /** Shards. */
  shards: number;
  /** Bytes of all shards (from the manifest, else read). */
  bytes: number;
  /** Label balance: overall, and per split when split. */
  labels?: Record<string, Record<string, number>>;
  /** Class names by `.cls` index, for class labels. */
  classes?: string[];
  /** Tabular columns and their types. */
  columns?: { name: string; type: string }[];
  /** The first few samples. */
  first: InspectedSample[];
}

const decoder = new TextDecoder();

function describeSample(s: ParsedSample, shard: string): InspectedSample {
  const out: InspectedSample = { key: s.key, shard, members: {} };
  for (const { ext, data } of s.files) {
    out.members[ext] = data.length;
    if (ext === 'cls') out.label = decoder.decode(data).trim();
    else if (ext === 'json') {
      try {
        out.fields = JSON.parse(decoder.decode(data));
      } catch {
        out.fields = '(not JSON)';
      }
    } else if (ext === 'npy') {
      try {
        const { descr, shape } = readNpyHeader(data);
        out.image = `npy ${descr} ${shape.join('x')}`;
      } catch (error) {
        out.image = `broken: ${(error as Error).message}`;
      }
    } else if (out.image === undefined) {
      try {
        const c = checkImage(data, []);
        if (c) out.image = `${c.kind} ${c.width ?? '?'}x${c.height ?? '?'}`;
      } catch (error) {
        out.image = `broken: ${(error as Error).message}`;
      }
    }
  }
  return out;
}

/**
 * `medfusion inspect`: the data set's summary from its manifest (samples,
 * shards, bytes, label balance per split, columns) and the first `count`
 * samples read from the first shard(s). Without a manifest (a folder of tar
 * files written by another tool), every shard is read to count.
 */
export async function inspect(target: string, count: number): Promise<InspectResult> {
  const ds = await openDataset(target);
  const m = ds.manifest;
  const result: InspectResult = {
    where: ds.where,
    samples: 0,
    shards: m.shards.length,
    bytes: 0,
    first: [],
  };
  if (m.format) result.format = `${m.format} v${m.version}`;
  if (m.fingerprint) result.fingerprint = m.fingerprint;
  const complete =
    ds.hasManifest && m.shards.every((e) => e.samples !== undefined && e.bytes !== undefined);
  if (complete) {
    result.samples = m.count ?? m.shards.reduce((a, e) => a + (e.samples as number), 0);
    result.bytes = m.shards.reduce((a, e) => a + (e.bytes as number), 0);
    if (m.labels) {
      result.labels = { all: m.labels.counts };
      for (const [name, split] of Object.entries(m.splits ?? {}))
        result.labels[name] = split.labels;
      if (m.labels.classes) result.classes = m.labels.classes;
    }
  }
  if (m.columns) result.columns = m.columns;
  const counts: Record<string, number> = {};
  for (const e of m.shards) {
    if (complete && result.first.length >= count) break;
    const bytes = await ds.read(e.url);
    if (!bytes) throw new Error(`${ds.where}: shard ${e.url} is missing`);
    const parsed = await readShard(bytes, e.url);
    for (const s of parsed.samples) {
      if (result.first.length < count) result.first.push(describeSample(s, e.url));
      if (!complete) {
        const cls = s.files.find((f) => f.ext === 'cls');
        if (cls) {
          const label = decoder.decode(cls.data).trim();
          counts[label] = (counts[label] ?? 0) + 1;
        }
      }
    }
    if (!complete) {
      result.samples += parsed.samples.length;
      result.bytes += bytes.length;
    }
  }
  if (!complete && Object.keys(counts).length > 0) result.labels = { all: counts };
  return result;
}

/** The report a person reads. */
export function formatInspect(r: InspectResult): string {
  const lines = [`data set   ${r.where}`];
  if (r.format) lines.push(`format     ${r.format}`);
  if (r.fingerprint) lines.push(`fingerprint ${r.fingerprint}`);
  lines.push(
    `samples    ${r.samples}`,
    `shards     ${r.shards}`,
    `bytes      ${r.bytes} (${(r.bytes / 1e6).toFixed(1)} MB)`,
  );
  for (const [split, counts] of Object.entries(r.labels ?? {})) {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const parts = Object.entries(counts).map(
      ([l, n]) => `${l}: ${n} (${((100 * n) / Math.max(1, total)).toFixed(1)}%)`,
    );
    lines.push(`labels ${split.padEnd(4)} ${parts.join(', ')}`);
  }
  if (r.classes) lines.push(`classes    ${r.classes.map((c, i) => `${i}=${c}`).join(', ')}`);
  if (r.columns)
    lines.push(`columns    ${r.columns.map((c) => `${c.name} (${c.type})`).join(', ')}`);
  lines.push('first samples:');
  for (const s of r.first) {
    const members = Object.entries(s.members)
      .map(([e, n]) => `${e} ${n} B`)
      .join(', ');
    lines.push(`  ${s.key} [${s.shard}] ${members}`);
    if (s.image) lines.push(`    image  ${s.image}`);
    if (s.label !== undefined) lines.push(`    label  ${s.label}`);
    if (s.fields !== undefined) lines.push(`    fields ${JSON.stringify(s.fields)}`);
  }
  return lines.join('\n');
}
