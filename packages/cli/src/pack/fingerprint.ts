import { createHash } from 'node:crypto';

/** A shard as the fingerprint covers it. */
export interface FingerprintedShard {
  /** File name. */
  name: string;
  /** Size in bytes. */
  bytes: number;
  /** Hex sha256 of its bytes. */
  sha256: string;
}

/**
 * The data set's fingerprint (`manifest.fingerprint`): hex sha256 of the plan's
 * layout (options, members' names and sizes, labels, fields) and every shard's
 * name, size and sha256, in order. It covers every byte written, it is known
 * only once the shards are, and it is the same whether one machine wrote them
 * all or the parts of `--part i/n` did (`medfusion merge` makes it from the
 * parts' records).
 */
export function dataSetFingerprint(layout: string, shards: readonly FingerprintedShard[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ format: 'medfusion-pack-fingerprint', version: 2, layout }));
  for (const s of shards) hash.update(JSON.stringify([s.name, s.bytes, s.sha256]));
  return hash.digest('hex');
}
