import type { TarSampleEntry } from '@medfusion/core';
import type { WebDatasetSample } from './webDatasetOptions.js';

/**
 * Sample assembly: cut a sample's member files out of the bytes read for it
 * (`bytes` starts at `entry.start`). Each member is a copy, so the (possibly
 * large, merged) read buffer is not kept alive by the sample.
 */
export function assembleSample(
  entry: TarSampleEntry,
  shard: number,
  bytes: Uint8Array,
): WebDatasetSample {
  const files: Record<string, Uint8Array> = {};
  for (const m of entry.members) {
    files[m.ext] =
      m.size === 0
        ? new Uint8Array(0)
        : bytes.slice(m.offset - entry.start, m.offset - entry.start + m.size);
  }
  return { key: entry.key, shard, files };
}
