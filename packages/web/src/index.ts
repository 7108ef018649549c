// @medfusion/web — browser adapters: workers, OPFS/IndexedDB, remote sources.
// TF.js and WebGPU adapters live in the subpaths `@medfusion/web/tfjs` and `@medfusion/web/webgpu`,
// so this entry never loads the optional peer dependency @tensorflow/tfjs-core.

// @medfusion/core's public API, re-exported so a browser app imports from @medfusion/web alone.
// Web's own createCachedDataset (with cacheDir) and its options type replace core's.
export type {
  ActiveEvictionPolicy,
  AsyncAugment,
  Augment,
  AugmentContext,
  AugmentFieldsOptions,
  AugmentFn,
  AugmentRandom,
  Batch,
  BatchField,
  BeladyOptions,
  BeladyResult,
  Bottleneck,
  ByteRange,
  CachedDatasetOptions,
  CacheStats,
  CacheType,
  CachingDataset,
  CachingEngineOptions,
  Clock,
  CollateContext,
  CollateFn,
  CollateOptions,
  CropBox,
  CutoutOptions,
  DataLoaderOptions,
  Dataset,
  DatasetFingerprint,
  DecodeSampleOptions,
  DiagnoseOptions,
  Diagnosis,
  DiskTierStats,
  EngineStats,
  EpochPlan,
  ErrorPolicy,
  EvenRanks,
  EvictionPolicy,
  EvictReason,
  Executor,
  FlipOptions,
  FloatArray,
  GammaOptions,
  GaussianJitterOptions,
  GaussianNoiseOptions,
  GetOptions,
  IntensityDraw,
  IntensityOptions,
  Loader,
  LoaderState,
  LoadLatencyStats,
  LoadPhaseStats,
  LRUCacheOptions,
  LRUCacheStats,
  MemoryStoreOptions,
  MergedRange,
  MergeRangesOptions,
  MixDatasetsOptions,
  NoiseDraw,
  NormalizeOptions,
  NpyArray,
  NpyDtype,
  OneOfDraw,
  OneOfOptions,
  PersistentStore,
  PersistentTierOptions,
  PlanAware,
  PlanInput,
  PrefetchDatasetOptions,
  PrefetchStats,
  QuarantineOptions,
  RandomResizedCropOptions,
  RankOptions,
  ReportsLoadPhases,
  RetryOptions,
  RetryPolicy,
  Rotate90Options,
  RotateOptions,
  RunOptions,
  Sample,
  SampleCodec,
  SampleFailure,
  SampleField,
  SampleValue,
  ShapedArray,
  ShardManifest,
  ShardManifestColumn,
  ShardManifestEntry,
  ShardManifestSplit,
  ShardPlanOptions,
  StoreUsage,
  StoreValue,
  TarIndexFile,
  TarMember,
  TarSampleEntry,
  TieredCachedDatasetOptions,
  TieredCacheStats,
  TierShare,
  TimerHandle,
  ToFloat32Options,
  Transform,
  TuneCacheOptions,
  TuneCacheResult,
  TuneCacheRow,
  TuningStats,
  TypedArray,
  TypedArrayConstructor,
  WriteBehindQueueOptions,
} from '@medfusion/core';
export {
  AbortError,
  AugmentError,
  AugmentRng,
  augmentFields,
  backoffDelay,
  beladyHitRate,
  CachedDataset,
  CachingEngine,
  ClosedError,
  CONSUMER_BOUND_STALL_SHARE,
  CollateError,
  checkShardManifestEntry,
  checksum,
  checkTarMembers,
  compose,
  createCollate,
  cutout,
  DataLoader,
  DECODE_BOUND_BUSY_SHARE,
  decodeNpy,
  decodeSample,
  decodeTarIndex,
  defaultSizeOf,
  diagnose,
  EFFECTIVE_HIT_RATE,
  ExecutorDataset,
  encodeSample,
  encodeTarIndex,
  flipH,
  flipV,
  flushMicrotasks,
  formatCacheReport,
  fromArray,
  fromLoader,
  gamma,
  gaussianJitter,
  gaussianNoise,
  groupSamples,
  IndexPermutation,
  InThreadExecutor,
  intensity,
  isPlanAware,
  isQuotaError,
  LOW_HIT_RATE,
  LoadError,
  LoadPhaseCounter,
  LoadTimeoutError,
  LRUCache,
  ManualClock,
  MedFusionError,
  MemoryStore,
  MixedDataset,
  mergeRanges,
  mixDatasets,
  normalize,
  oneOf,
  PersistentTierDataset,
  PrefetchDataset,
  parseShardManifest,
  philox4x32,
  Quarantine,
  QuarantinedError,
  RankPlan,
  REFERENCE_CACHE_SIZES,
  RetryExhaustedError,
  randomResizedCrop,
  recommendCacheSize,
  resolveFingerprint,
  retry,
  rotate,
  rotate90,
  runTransform,
  SampleCodecError,
  SampleFailedError,
  SequentialPlan,
  ShardLayout,
  ShardOrder,
  SizeLimitError,
  SourceFormatError,
  Speculation,
  shardPlan,
  shuffledOrder,
  sleep,
  splitSampleName,
  systemClock,
  TieredCachedDataset,
  tuneCache,
} from '@medfusion/core';
export { isCrossOriginIsolated } from './env.js';
export { opfsShards } from './packing/opfsShards.js';
export { PackFilesError } from './packing/PackFilesError.js';
export { packFiles } from './packing/packFiles.js';
export type {
  PackFilesOptions,
  PackFilesResult,
  PackProgress,
} from './packing/packFilesOptions.js';
export type { RequestTimeoutOptions } from './remote/fetchWithTimeout.js';
export { defaultOriginLimiter, OriginLimiter } from './remote/OriginLimiter.js';
export type {
  HttpOptions,
  RangeReaderOptions,
  ReadOptions,
  SignUrl,
  SignUrlContext,
  SignUrlOptions,
} from './remote/RangeReader.js';
export { RangeReader } from './remote/RangeReader.js';
export {
  ChecksumMismatchError,
  ObjectChangedError,
  RemoteReadError,
  RequestTimeoutError,
  SignUrlError,
} from './remote/RemoteError.js';
export type { ByteSpan } from './remote/readBodyPieces.js';
export type { UrlPolicy } from './remote/urlPolicy.js';
export { UrlNotAllowedError } from './remote/urlPolicy.js';
export { CsvImageDataset } from './sources/CsvImageDataset.js';
export type {
  CsvImageDatasetOptions,
  CsvImageSample,
  CsvInvalidRow,
} from './sources/csvImageOptions.js';
export { CsvFormatError } from './sources/csvManifest.js';
export type { DecodedImage, ImageDtype, ImagePixels } from './sources/DecodedImage.js';
export type { ImageDecoderOptions } from './sources/decodeImage.js';
export { ImageDecodeError, ImageDecoder } from './sources/decodeImage.js';
export { ParquetSource } from './sources/ParquetSource.js';
export { UnsupportedCodecError } from './sources/parquetCodecs.js';
export type {
  ParquetColumns,
  ParquetSample,
  ParquetSourceOptions,
  ParquetStats,
} from './sources/parquetOptions.js';
export type { ShardTransform } from './sources/webdataset/exposeTransform.js';
export { exposeTransform } from './sources/webdataset/exposeTransform.js';
export { indexTarStream } from './sources/webdataset/indexTarStream.js';
export { WebDatasetSource } from './sources/webdataset/WebDatasetSource.js';
export type {
  SampleRange,
  WebDatasetSample,
  WebDatasetSourceOptions,
  WebDatasetStats,
} from './sources/webdataset/webDatasetOptions.js';
export type { CreateCachedDatasetOptions } from './storage/createCachedDataset.js';
export { createCachedDataset } from './storage/createCachedDataset.js';
export type { EncryptionOptions, EncryptionUsage } from './storage/encryption/encryptionOptions.js';
export { IdbStore } from './storage/IdbStore.js';
export type { IdbStoreOptions, IdbStoreUsage } from './storage/idbStoreOptions.js';
export type {
  CachedTypedArray,
  MemoryMappedCacheOptions,
  MemoryMappedCacheStats,
} from './storage/MemoryMappedCache.js';
export { MemoryMappedCache } from './storage/MemoryMappedCache.js';
export { OpfsStore } from './storage/opfs/OpfsStore.js';
export type { OpfsStoreOptions, OpfsStoreUsage } from './storage/opfs/opfsStoreOptions.js';
export { OPFS_STORE_WORKER, opfsStoreWorker } from './storage/opfs/opfsStoreWorker.js';
export type { RetentionOptions } from './storage/retention/retentionOptions.js';
export type { StoreErrorCode } from './storage/storeErrors.js';
export { StoreError } from './storage/storeErrors.js';
export type { CacheDirStoreOptions } from './storage/storeForCacheDir.js';
export { storeForCacheDir } from './storage/storeForCacheDir.js';
export type {
  AugmentWorkerPool,
  AugmentWorkerPoolOptions,
} from './workers/createAugmentWorkerPool.js';
export { createAugmentWorkerPool } from './workers/createAugmentWorkerPool.js';
export type { WorkerExecutor } from './workers/createWorkerExecutor.js';
export { createWorkerExecutor } from './workers/createWorkerExecutor.js';
export type { AugmentCall } from './workers/exposeAugment.js';
export { exposeAugment } from './workers/exposeAugment.js';
export type { ExposeLoaderOptions, WorkerLoader } from './workers/exposeLoader.js';
export { exposeLoader } from './workers/exposeLoader.js';
export type { StallWatchdogOptions } from './workers/stallWatchdog.js';
export { StallWatchdog } from './workers/stallWatchdog.js';
export { collectTransferables } from './workers/transferables.js';
export { StallError, WorkerCrashedError, WorkerLoadError } from './workers/workerErrors.js';
export type {
  WorkerCrashEvent,
  WorkerExecutorOptions,
  WorkerExecutorStats,
  WorkerLiveness,
} from './workers/workerExecutorOptions.js';
export type { WorkerHost, WorkerHostOptions } from './workers/workerHost.js';
export { createWorkerHost } from './workers/workerHost.js';
export type { ConnectWorkerHostOptions, WorkerHostClient } from './workers/workerHostClient.js';
export { connectWorkerHost } from './workers/workerHostClient.js';
