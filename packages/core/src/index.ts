// @medfusion/core — platform-neutral caching, prefetching and loading.
export type { AbortControllerLike, AbortSignalLike } from './abort.js';
export { AbortError, createAbortController, raceAbort } from './abort.js';
export { AccessPredictor } from './accessPredictor.js';
export { BufferPool } from './BufferPool.js';
export type { BeladyOptions, BeladyResult } from './belady.js';
export { beladyHitRate } from './belady.js';
export type { CachedDatasetOptions, CacheStats } from './CachedDataset.js';
export { CachedDataset } from './CachedDataset.js';
export type {
  CachingEngineOptions,
  EngineStats,
  EvictionPolicy,
  PrefetchStats,
} from './CachingEngine.js';
export { CachingEngine } from './CachingEngine.js';
export type { Clock, TimerHandle } from './Clock.js';
export { flushMicrotasks, ManualClock, systemClock } from './Clock.js';
export {
  EFFECTIVE_HIT_RATE,
  formatCacheReport,
  LOW_HIT_RATE,
  recommendCacheSize,
} from './cacheReport.js';
export { checksum } from './checksum.js';
export type {
  Batch,
  BatchField,
  CollateContext,
  CollateFn,
  CollateOptions,
  Sample,
  SampleField,
  ShapedArray,
  ToFloat32Options,
} from './collate.js';
export { CollateError, createCollate } from './collate.js';
export { philox4x32 } from './counterRng.js';
export type {
  CacheType,
  CachingDataset,
  CreateCachedDatasetOptions,
} from './createCachedDataset.js';
export { createCachedDataset } from './createCachedDataset.js';
export type { DataLoaderOptions, LoaderState } from './DataLoader.js';
export { DataLoader } from './DataLoader.js';
export type { Dataset, GetOptions, Loader, PlanAware } from './Dataset.js';
export { checkPlan, fromArray, fromLoader, isPlanAware } from './Dataset.js';
export type { Executor } from './Executor.js';
export type {
  ErrorPolicy,
  ResolvedErrorPolicy,
  RetryPolicy,
  SampleFailure,
} from './errorPolicy.js';
export { QuarantinedError, resolveErrorPolicy, SampleFailedError } from './errorPolicy.js';
export { ClosedError, LoadError, LoadTimeoutError, MedFusionError } from './errors.js';
export { InThreadExecutor } from './InThreadExecutor.js';
export type { EvictReason, LRUCacheOptions, LRUCacheStats } from './LRUCache.js';
export { LRUCache } from './LRUCache.js';
export type { MemoryStoreOptions } from './MemoryStore.js';
export { MemoryStore } from './MemoryStore.js';
export type { PersistentStore, StoreUsage, StoreValue } from './PersistentStore.js';
export type {
  DatasetFingerprint,
  DiskTierStats,
  PersistentTierOptions,
  SampleCodec,
  TieredCacheStats,
  TieredCachingDataset,
} from './PersistentTierDataset.js';
export {
  PersistentTierDataset,
  resolveFingerprint,
  withDiskTier,
} from './PersistentTierDataset.js';
export type { PrefetchDatasetOptions } from './PrefetchDataset.js';
export { PrefetchDataset } from './PrefetchDataset.js';
export type { QuarantineOptions } from './Quarantine.js';
export { Quarantine } from './Quarantine.js';
export type { ByteRange, MergedRange, MergeRangesOptions } from './rangeMerge.js';
export { mergeRanges } from './rangeMerge.js';
export type { RetryOptions } from './retry.js';
export { backoffDelay, isRetryable, RetryExhaustedError, retry, sleep } from './retry.js';
export type { SampleValue } from './sampleCodec.js';
export { decodeSample, encodeSample, SampleCodecError } from './sampleCodec.js';
export type { ShardPlanOptions } from './shardPlan.js';
export { ShardLayout, shardPlan } from './shardPlan.js';
export { shuffledOrder } from './shuffle.js';
export { defaultSizeOf } from './sizeOf.js';
export type { TypedArray, TypedArrayConstructor } from './typedArrays.js';
export { isTypedArray } from './typedArrays.js';
export type { WriteBehindQueueOptions, WriteBehindStats, WriteFn } from './writeBehindQueue.js';
export { WriteBehindQueue } from './writeBehindQueue.js';
