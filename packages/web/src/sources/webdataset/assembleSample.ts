import type { TarSampleEntry } from '@medfusion/core';
import type { WebDatasetSample } from './webDatasetOptions.js';

/**
 * Sample assembly: cut a sample's member files out of the bytes read for it
 * (`bytes` starts at `entry.start`). Each member is a copy, so the (possibly
 * large, merged) read buffer is not kept alive by the sample — unless `views`:
 * then members are views into `bytes`, which the caller owns (one buffer for
 * the whole sample, e.g. to move to a worker).
 */
export function assembleSample(
  entry: TarSampleEntry,
  shard: number,
  bytes: Uint8Array,
  views = false,
): WebDatasetSample {
  const files: Record<string, Uint8Array> = {};
  for (const m of entry.members) {
    const start = m.offset - entry.start;
    files[m.ext] =
      m.size === 0
        ? new Uint8Array(0)
        : views
          ? bytes.subarray(start, start + m.size)
          : bytes.slice(start, start + m.size);
  }
  return { key: entry.key, shard, files };
}
