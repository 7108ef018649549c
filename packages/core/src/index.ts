// @medfusion/core — platform-neutral caching, prefetching and loading.

export type { AsyncAugment, Augment, AugmentContext, AugmentFn } from './augment/Augment.js';
export { AugmentError } from './augment/Augment.js';
export type { AugmentRandom } from './augment/AugmentRng.js';
export { AugmentRng } from './augment/AugmentRng.js';
export type { AugmentFieldsOptions } from './augment/augmentFields.js';
export { augmentFields } from './augment/augmentFields.js';
export type { OneOfDraw, OneOfOptions } from './augment/compose.js';
export { compose, oneOf } from './augment/compose.js';
export type { CutoutOptions } from './augment/cutout.js';
export { cutout } from './augment/cutout.js';
export type { FlipOptions } from './augment/flip.js';
export { flipH, flipV } from './augment/flip.js';
export type { GammaOptions } from './augment/gamma.js';
export { gamma } from './augment/gamma.js';
export type { GaussianJitterOptions } from './augment/gaussianJitter.js';
export { gaussianJitter } from './augment/gaussianJitter.js';
export type { GaussianNoiseOptions, NoiseDraw } from './augment/gaussianNoise.js';
export { gaussianNoise } from './augment/gaussianNoise.js';
export type { IntensityDraw, IntensityOptions } from './augment/intensity.js';
export { intensity } from './augment/intensity.js';
export type { NormalizeOptions } from './augment/normalize.js';
export { normalize } from './augment/normalize.js';
export type { CropBox, RandomResizedCropOptions } from './augment/randomResizedCrop.js';
export { randomResizedCrop } from './augment/randomResizedCrop.js';
export type { RotateOptions } from './augment/rotate.js';
export { rotate } from './augment/rotate.js';
export type { Rotate90Options } from './augment/rotate90.js';
export { rotate90 } from './augment/rotate90.js';
export type { FloatArray, Transform } from './augment/Transform.js';
export { runTransform } from './augment/Transform.js';
export type { BeladyOptions, BeladyResult } from './cache/belady.js';
export { beladyHitRate } from './cache/belady.js';
export type { CachedDatasetOptions, CacheStats } from './cache/CachedDataset.js';
export { CachedDataset } from './cache/CachedDataset.js';
export {
  EFFECTIVE_HIT_RATE,
  formatCacheReport,
  LOW_HIT_RATE,
  recommendCacheSize,
} from './cache/cacheReport.js';
export type { EvictReason, LRUCacheOptions, LRUCacheStats } from './cache/LRUCache.js';
export { LRUCache } from './cache/LRUCache.js';
export { defaultSizeOf } from './cache/sizeOf.js';
export type { Dataset, GetOptions, Loader, PlanAware } from './dataset/Dataset.js';
export { checkPlan, fromArray, fromLoader, isPlanAware } from './dataset/Dataset.js';
export type { Executor } from './dataset/Executor.js';
export { InThreadExecutor } from './dataset/InThreadExecutor.js';
export { AccessPredictor } from './engine/accessPredictor.js';
export type {
  CachingEngineOptions,
  EngineStats,
  EvictionPolicy,
  PrefetchStats,
} from './engine/CachingEngine.js';
export { CachingEngine } from './engine/CachingEngine.js';
export type {
  CacheType,
  CachingDataset,
  CreateCachedDatasetOptions,
} from './engine/createCachedDataset.js';
export { createCachedDataset } from './engine/createCachedDataset.js';
export type { PrefetchDatasetOptions } from './engine/PrefetchDataset.js';
export { PrefetchDataset } from './engine/PrefetchDataset.js';
export { ClosedError, LoadError, LoadTimeoutError, MedFusionError } from './errors.js';
export { BufferPool } from './loader/BufferPool.js';
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
} from './loader/collate.js';
export { CollateError, createCollate } from './loader/collate.js';
export { philox4x32 } from './loader/counterRng.js';
export type { DataLoaderOptions, LoaderState } from './loader/DataLoader.js';
export { DataLoader } from './loader/DataLoader.js';
export type { ShardPlanOptions } from './loader/shardPlan.js';
export { ShardLayout, shardPlan } from './loader/shardPlan.js';
export { shuffledOrder } from './loader/shuffle.js';
export { checksum } from './persistence/checksum.js';
export type { MemoryStoreOptions } from './persistence/MemoryStore.js';
export { MemoryStore } from './persistence/MemoryStore.js';
export type { PersistentStore, StoreUsage, StoreValue } from './persistence/PersistentStore.js';
export type {
  DatasetFingerprint,
  DiskTierStats,
  PersistentTierOptions,
  SampleCodec,
  TieredCacheStats,
  TieredCachingDataset,
} from './persistence/PersistentTierDataset.js';
export {
  PersistentTierDataset,
  resolveFingerprint,
  withDiskTier,
} from './persistence/PersistentTierDataset.js';
export type { SampleValue } from './persistence/sampleCodec.js';
export { decodeSample, encodeSample, SampleCodecError } from './persistence/sampleCodec.js';
export type {
  WriteBehindQueueOptions,
  WriteBehindStats,
  WriteFn,
} from './persistence/writeBehindQueue.js';
export { WriteBehindQueue } from './persistence/writeBehindQueue.js';
export type {
  ErrorPolicy,
  ResolvedErrorPolicy,
  RetryPolicy,
  SampleFailure,
} from './reliability/errorPolicy.js';
export {
  QuarantinedError,
  resolveErrorPolicy,
  SampleFailedError,
} from './reliability/errorPolicy.js';
export type { QuarantineOptions } from './reliability/Quarantine.js';
export { Quarantine } from './reliability/Quarantine.js';
export type { RetryOptions } from './reliability/retry.js';
export {
  backoffDelay,
  isRetryable,
  RetryExhaustedError,
  retry,
  sleep,
} from './reliability/retry.js';
export type { ByteRange, MergedRange, MergeRangesOptions } from './remote/rangeMerge.js';
export { mergeRanges } from './remote/rangeMerge.js';
export { AbortError, raceAbort } from './util/abort.js';
export type { Clock, TimerHandle } from './util/Clock.js';
export { flushMicrotasks, ManualClock, systemClock } from './util/Clock.js';
export type { TypedArray, TypedArrayConstructor } from './util/typedArrays.js';
export { isTypedArray } from './util/typedArrays.js';
