import { groupSamples, splitSampleName, type TarMember } from '@medfusion/core';
import { unpackTar } from 'modern-tar';

/** One sample of a parsed shard: its key and member files. */
export interface ParsedSample {
  /** Sample key. */
  key: string;
  /** Member files by extension, in archive order. */
  files: { ext: string; data: Uint8Array }[];
}

/** A shard parsed by the tar library (independent of any index). */
export interface ParsedShard {
  /** Regular files in archive order: name and data. */
  files: { name: string; data: Uint8Array }[];
  /** The WebDataset samples (consecutive files sharing a key; names without an extension skipped). */
  samples: ParsedSample[];
}

/**
 * Parse a whole shard with modern-tar (strict: header checksums and ustar
 * magic), and group its files into samples; a member repeated in a sample is a
 * `BAD_FORMAT` error from core's `groupSamples`.
 */
export async function readShard(bytes: Uint8Array, name: string): Promise<ParsedShard> {
  const entries = await unpackTar(bytes, { strict: true });
  const files = entries
    .filter((e) => e.header.type === undefined || e.header.type === 'file')
    .map((e) => ({ name: e.header.name, data: e.data ?? new Uint8Array(0) }));
  const members: TarMember[] = files.map((f) => ({ name: f.name, offset: 0, size: f.data.length }));
  groupSamples(members, name);
  const samples: ParsedSample[] = [];
  for (const f of files) {
    const parts = splitSampleName(f.name);
    if (!parts) continue;
    const last = samples[samples.length - 1];
    if (last && last.key === parts.key) last.files.push({ ext: parts.ext, data: f.data });
    else samples.push({ key: parts.key, files: [{ ext: parts.ext, data: f.data }] });
  }
  return { files, samples };
}
