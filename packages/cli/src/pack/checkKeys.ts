import { checkUniqueKeys } from '@medfusion/core/internal/tar';
import type { SampleTable } from '../input/SampleTable.js';
import { PackError } from '../PackError.js';
import { hash53 } from './rank.js';

/**
 * Check no two of `samples` (table indices) share a key (two files would
 * become one sample): a `PACK_INPUT` PackError naming both files (core's rule,
 * the first repeat in input order). Held meanwhile: one 53-bit hash a sample;
 * the keys themselves are compared only for the few hashes seen twice.
 */
export function checkKeys(table: SampleTable, samples: Uint32Array): void {
  const hashes = new Float64Array(samples.length);
  samples.forEach((i, k) => {
    hashes[k] = hash53(table.key(i));
  });
  hashes.sort();
  const twice = new Set<number>();
  for (let k = 1; k < hashes.length; k++)
    if (hashes[k] === hashes[k - 1]) twice.add(hashes[k] as number);
  if (twice.size === 0) return;
  const suspects: { key: string; source: string }[] = [];
  for (const i of samples) {
    const key = table.key(i);
    if (twice.has(hash53(key))) suspects.push({ key, source: table.source(i) });
  }
  checkUniqueKeys(suspects, (s, message) => {
    throw new PackError('PACK_INPUT', s.source, message);
  });
}
