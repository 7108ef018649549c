// What the epoch rows of `pnpm bench store` share, in the browser (main.ts) and in Node
// (nodeEpoch.ts): a seeded shuffled order, the HTTP source of the throttled server, the source
// that fails every load (the network off), and one timed epoch through a cache, tiered by the
// caller's `tier` (an OpfsStore on the page, a cacheDir in Node) or memory only.
import {
  type CachingDataset,
  type CreateCachedDatasetOptions,
  createCachedDataset,
  type Dataset,
  fromLoader,
  type TieredCachedDataset,
} from '@medfusion/core';

/** A seeded shuffle of `[0, n)` (Fisher-Yates over an LCG): the same order for the same seed. */
export function permutation(n: number, seed: number): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  let s = seed >>> 0;
  for (let i = n - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
  return a;
}

/** `n` samples read one request each from `${url}/s/<index>` (the throttled server). */
export const httpSource = (url: string, n: number): Dataset<Uint8Array> =>
  fromLoader(n, async (i, signal) => {
    const res = await fetch(`${url}/s/${i}`, { signal: signal ?? null });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  });

/** A source whose every load fails: a disk epoch must read every sample from the disk tier. */
export const offlineSource = (n: number): Dataset<Uint8Array> =>
  fromLoader(n, () => {
    throw new Error('offline: the network is off in the disk epoch');
  });

/** Options of the cache an epoch reads through, before its disk tier. */
type Common = CreateCachedDatasetOptions<Uint8Array>;

/**
 * One epoch of `source` in `order` with `prefetch` loads ahead, every sample checked to be
 * `size` bytes; through the disk tier `tier` makes from the common options, or memory only.
 * Returns its wall time and, with a tier, its disk hits (after the disk writes flushed).
 */
export async function epoch(
  source: Dataset<Uint8Array>,
  order: number[],
  size: number,
  prefetch: number,
  tier?: (source: Dataset<Uint8Array>, common: Common) => TieredCachedDataset<Uint8Array>,
): Promise<{ ms: number; diskHits: number }> {
  const common: Common = { cacheType: 'prefetch', prefetchSize: prefetch, numWorkers: prefetch };
  const tiered = tier?.(source, { ...common, fingerprint: 'bench-epoch@1' });
  const ds: CachingDataset<Uint8Array> = tiered ?? createCachedDataset(source, common);
  ds.setPlan(order);
  const t0 = performance.now();
  for (const i of order) {
    const v = await ds.get(i);
    if (v.byteLength !== size)
      throw new Error(`sample ${i}: ${v.byteLength} bytes, expected ${size}`);
  }
  const ms = performance.now() - t0;
  let diskHits = 0;
  if (tiered) {
    await tiered.flush();
    diskHits = tiered.getCacheStats().diskHits;
  }
  await ds.close();
  return { ms, diskHits };
}
