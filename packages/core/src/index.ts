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
export { LRUCache } from './cache/LRUCache.js';
export type { EvictReason, LRUCacheOptions, LRUCacheStats } from './cache/lruCacheOptions.js';
export { defaultSizeOf } from './cache/sizeOf.js';
export type { Dataset, GetOptions, Loader, PlanAware } from './dataset/Dataset.js';
export { fromArray, fromLoader, isPlanAware } from './dataset/Dataset.js';
export type { Executor, RunOptions } from './dataset/Executor.js';
export { ExecutorDataset } from './dataset/ExecutorDataset.js';
export { InThreadExecutor } from './dataset/InThreadExecutor.js';
export type { LoadPhaseStats, ReportsLoadPhases } from './dataset/LoadPhases.js';
export { LoadPhaseCounter } from './dataset/LoadPhases.js';
export type { LoadTierListener, ReportsLoadTiers } from './dataset/LoadTiers.js';
export type { MixDatasetsOptions } from './dataset/MixedDataset.js';
export { MixedDataset, mixDatasets } from './dataset/MixedDataset.js';
export { Speculation } from './dataset/Speculation.js';
export {
  EFFECTIVE_HIT_RATE,
  formatCacheReport,
  LOW_HIT_RATE,
  recommendCacheSize,
} from './diagnostics/cacheReport.js';
export type {
  Bottleneck,
  DiagnoseOptions,
  Diagnosis,
  TierShare,
} from './diagnostics/diagnose.js';
export {
  CONSUMER_BOUND_STALL_SHARE,
  DECODE_BOUND_BUSY_SHARE,
  diagnose,
} from './diagnostics/diagnose.js';
export type { TuneCacheOptions, TuneCacheResult, TuneCacheRow } from './diagnostics/tuneCache.js';
export { REFERENCE_CACHE_SIZES, tuneCache } from './diagnostics/tuneCache.js';
export type { TuningStats } from './engine/autotune/AutoTuner.js';
export type { LoadLatencyStats } from './engine/autotune/LatencyWindow.js';
export type { CachedDatasetOptions } from './engine/CachedDataset.js';
export { CachedDataset } from './engine/CachedDataset.js';
export type { CacheStats } from './engine/CacheStats.js';
export type { CachingDataset } from './engine/CachingDataset.js';
export { CachingEngine } from './engine/CachingEngine.js';
export type { CacheType, CreateCachedDatasetOptions } from './engine/createCachedDataset.js';
export { createCachedDataset } from './engine/createCachedDataset.js';
export type {
  ActiveEvictionPolicy,
  CachingEngineOptions,
  EngineStats,
  EvictionPolicy,
  PrefetchStats,
} from './engine/engineOptions.js';
export type { PrefetchDatasetOptions } from './engine/PrefetchDataset.js';
export { PrefetchDataset } from './engine/PrefetchDataset.js';
export type {
  TieredCachedDatasetOptions,
  TieredCacheStats,
} from './engine/TieredCachedDataset.js';
export { TieredCachedDataset } from './engine/TieredCachedDataset.js';
export type { ErrorCode } from './errorCodes.js';
export {
  ClosedError,
  LoadError,
  LoadTimeoutError,
  MedFusionError,
  SizeLimitError,
  SourceFormatError,
} from './errors.js';
export { CollateError, createCollate } from './loader/collate.js';
export type {
  Batch,
  BatchField,
  CollateContext,
  CollateFn,
  CollateOptions,
  Sample,
  SampleField,
  ToFloat32Options,
} from './loader/collateOptions.js';
export type { DataLoaderOptions, LoaderState } from './loader/DataLoader.js';
export { DataLoader } from './loader/DataLoader.js';
export { checksum } from './persistence/checksum.js';
export type { DecodeSampleOptions } from './persistence/decodeSample.js';
export { decodeSample } from './persistence/decodeSample.js';
export { encodeSample } from './persistence/encodeSample.js';
export type { MemoryStoreOptions } from './persistence/MemoryStore.js';
export { MemoryStore } from './persistence/MemoryStore.js';
export type { PersistentStore, StoreUsage, StoreValue } from './persistence/PersistentStore.js';
export type {
  DatasetFingerprint,
  DiskTierStats,
  PersistentTierOptions,
  SampleCodec,
} from './persistence/PersistentTierDataset.js';
export { PersistentTierDataset, resolveFingerprint } from './persistence/PersistentTierDataset.js';
export type { RetentionOptions } from './persistence/retention.js';
export type { StoreErrorCode } from './persistence/StoreError.js';
export { StoreError } from './persistence/StoreError.js';
export type { SampleValue } from './persistence/sampleCodec.js';
export { SampleCodecError } from './persistence/sampleCodec.js';
export type { EncryptionUsage } from './persistence/sealedFormat.js';
export { isQuotaError } from './persistence/storeChecks.js';
export type { WriteBehindQueueOptions } from './persistence/writeBehindQueue.js';
export type { EpochPlan, PlanInput } from './plan/EpochPlan.js';
export { SequentialPlan } from './plan/EpochPlan.js';
export { IndexPermutation } from './plan/IndexPermutation.js';
export type { MixOptions, OnExhausted } from './plan/MixOrder.js';
export type { EvenRanks, RankOptions } from './plan/RankPlan.js';
export { RankPlan } from './plan/RankPlan.js';
export { ShardLayout } from './plan/ShardLayout.js';
export type { ShardPlanOptions } from './plan/ShardOrder.js';
export { ShardOrder } from './plan/ShardOrder.js';
export { shardPlan } from './plan/shardPlan.js';
export { shuffledOrder } from './plan/shuffle.js';
export type { ErrorPolicy, RetryPolicy, SampleFailure } from './reliability/errorPolicy.js';
export { QuarantinedError, SampleFailedError } from './reliability/errorPolicy.js';
export type { QuarantineOptions } from './reliability/Quarantine.js';
export { Quarantine } from './reliability/Quarantine.js';
export type { RetryOptions } from './reliability/retry.js';
export { backoffDelay, RetryExhaustedError, retry, sleep } from './reliability/retry.js';
export type { ByteRange, MergedRange, MergeRangesOptions } from './remote/rangeMerge.js';
export { mergeRanges } from './remote/rangeMerge.js';
export type { NpyArray, NpyDtype } from './shards/decodeNpy.js';
export { decodeNpy } from './shards/decodeNpy.js';
export type {
  ShardManifest,
  ShardManifestColumn,
  ShardManifestEntry,
  ShardManifestSplit,
} from './shards/shardManifest.js';
export { checkShardManifestEntry, parseShardManifest } from './shards/shardManifest.js';
export type { TarIndexFile, TarMember, TarSampleEntry } from './shards/tarIndex.js';
export {
  checkTarMembers,
  decodeTarIndex,
  encodeTarIndex,
  groupSamples,
  splitSampleName,
} from './shards/tarIndex.js';
export { AbortError } from './util/abort.js';
export type { Clock, TimerHandle } from './util/Clock.js';
export { flushMicrotasks, ManualClock, systemClock } from './util/Clock.js';
export { philox4x32 } from './util/counterRng.js';
export type { ShapedArray, TypedArray, TypedArrayConstructor } from './util/typedArrays.js';
