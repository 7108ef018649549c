import { createHash } from 'node:crypto';
import { sampleKey as sampleKeyWith } from '@medfusion/core/internal/tar';

/** Core's `sampleKey` (the key rule both packers share) with Node's sha256. */
export function sampleKey(rel: string): string {
  return sampleKeyWith(rel, (text) => createHash('sha256').update(text).digest('hex'));
}
