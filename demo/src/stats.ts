// What the training worker reports about the data path, and the hit rates the
// page and the advice derive from it (no TF.js here: the page imports this).
import type {
  EngineStats,
  LoadPhaseStats,
  TieredCacheStats,
  WebDatasetStats,
} from '@medfusion/web';

/** What the page shows about the data path, cumulative since the pipeline was built. */
export interface PipelineStats {
  /** Samples handed to training. */
  delivered: number;
  /** Samples fetched and decoded from the network source. */
  networkLoads: number;
  /** Source loads that failed (e.g. offline). */
  networkErrors: number;
  /** Reads of the memory tier (hits + misses; 0 without a memory cache). */
  reads: number;
  /** Reads served from memory. */
  memoryHits: number;
  /** Samples read back from the disk tier. */
  diskReads: number;
  /** Memory misses that went down to the disk tier and on to the source (0 without the disk tier). */
  diskMisses: number;
  /** Memory hit rate: `memoryHits / reads` (0 without a cache). */
  memoryHitRate: number;
  /** Disk hit rate: the share of memory misses that the disk served (0 without the disk tier). */
  diskHitRate: number;
  /** Entries in the memory cache. */
  cacheSize: number;
  /** Memory cache capacity (0 without a cache). */
  cacheCapacity: number;
  /** Bytes held by the memory cache. */
  cacheBytes: number;
  /** The cached dataset's own stats (per tier with the disk), for the library's report. */
  engine: EngineStats | TieredCacheStats;
  /** Range requests and bytes of the shards source (undefined for the CSV source). */
  shards: WebDatasetStats | undefined;
}

/** Memory and disk hit rates of the reads between `since` and `now` (whole run without `since`). */
export function tierRates(
  now: PipelineStats,
  since?: PipelineStats,
): { memory: number; disk: number; reads: number } {
  const reads = now.reads - (since?.reads ?? 0);
  const hits = now.memoryHits - (since?.memoryHits ?? 0);
  const disk = now.diskReads - (since?.diskReads ?? 0);
  const down = disk + now.diskMisses - (since?.diskMisses ?? 0);
  return { memory: reads > 0 ? hits / reads : 0, disk: down > 0 ? disk / down : 0, reads };
}

/** Samples of the current data set on disk, and the whole store's use. */
export interface DiskUsage {
  /** Samples of this data set (this fingerprint, indices in use) held on disk. */
  entries: number;
  /** Entries in the store, every data set together. */
  storeEntries: number;
  /** Bytes in the store, every data set together. */
  storeBytes: number;
  /** What backs the store: OPFS with sync access handles, OPFS's async API, or IndexedDB. */
  backend: 'opfs-sync' | 'opfs-async' | 'idb';
}

/**
 * The load phases of a span (an epoch): the totals `now` minus those at its `start`;
 * undefined when no source load finished in it. The engine's are cumulative, so a
 * diagnosis of one epoch (its stall, its wall time) takes this span's phases too.
 */
export function phasesSince(
  now: LoadPhaseStats | undefined,
  start: LoadPhaseStats | undefined,
): LoadPhaseStats | undefined {
  const loads = (now?.loads ?? 0) - (start?.loads ?? 0);
  if (now === undefined || loads <= 0) return undefined;
  return {
    loads,
    sourceMs: now.sourceMs - (start?.sourceMs ?? 0),
    decodeMs: now.decodeMs - (start?.decodeMs ?? 0),
    threads: now.threads,
  };
}
