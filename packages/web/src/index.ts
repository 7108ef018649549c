// @medfusion/web — browser adapters: workers, OPFS/IndexedDB, sources, TF.js, WebGPU.

export { isCrossOriginIsolated } from './env.js';
export { defaultOriginLimiter, OriginLimiter } from './remote/OriginLimiter.js';
export type { HttpOptions, RangeReaderOptions, ReadOptions } from './remote/RangeReader.js';
export { RangeReader } from './remote/RangeReader.js';
export {
  ChecksumMismatchError,
  ObjectChangedError,
  RemoteReadError,
  SourceFormatError,
} from './remote/RemoteError.js';
export { sha256Hex } from './remote/sha256.js';
export type { UrlPolicy } from './remote/urlPolicy.js';
export { UrlNotAllowedError } from './remote/urlPolicy.js';
export type {
  CsvImageDatasetOptions,
  CsvImageSample,
  CsvInvalidRow,
} from './sources/CsvImageDataset.js';
export { CsvFormatError, CsvImageDataset } from './sources/CsvImageDataset.js';
export type { DecodedImage, ImageDecoderOptions } from './sources/decodeImage.js';
export { ImageDecodeError, ImageDecoder } from './sources/decodeImage.js';
export type {
  ParquetColumns,
  ParquetSample,
  ParquetSourceOptions,
  ParquetStats,
} from './sources/ParquetSource.js';
export { ParquetSource } from './sources/ParquetSource.js';
export type { TarIndexFile, TarMember, TarSampleEntry } from './sources/tarIndex.js';
export {
  decodeTarIndex,
  encodeTarIndex,
  groupSamples,
  indexTarStream,
  splitSampleName,
} from './sources/tarIndex.js';
export type {
  SampleRange,
  ShardManifest,
  ShardManifestEntry,
  WebDatasetSample,
  WebDatasetSourceOptions,
  WebDatasetStats,
} from './sources/WebDatasetSource.js';
export { WebDatasetSource } from './sources/WebDatasetSource.js';
export type { WebCachedDatasetOptions } from './storage/createCachedDataset.js';
export { createCachedDataset, storeForCacheDir } from './storage/createCachedDataset.js';
export type { IdbStoreOptions, IdbStoreUsage } from './storage/IdbStore.js';
export { IdbStore } from './storage/IdbStore.js';
export type {
  CachedTypedArray,
  MemoryMappedCacheOptions,
  MemoryMappedCacheStats,
} from './storage/MemoryMappedCache.js';
export { MemoryMappedCache } from './storage/MemoryMappedCache.js';
export type { OpfsStoreOptions, OpfsStoreUsage } from './storage/opfs/OpfsStore.js';
export { OpfsStore } from './storage/opfs/OpfsStore.js';
export type { StoreErrorCode } from './storage/storeErrors.js';
export { isQuotaError, StoreError } from './storage/storeErrors.js';
export { withWebLock } from './storage/webLocks.js';
export type { AugmentBatchOptions } from './tfjs/augmentBatchTf.js';
export { augmentBatchTf } from './tfjs/augmentBatchTf.js';
export type { GpuTensorOptions, TensorDtype } from './tfjs/batchToTensors.js';
export {
  batchToTensors,
  defaultDtype,
  fieldToTensor,
  gpuBatchToTensors,
} from './tfjs/batchToTensors.js';
export type {
  BatchMapping,
  BatchSource,
  TensorsSpec,
  TfDataset,
  TfDatasetOptions,
  TfElement,
} from './tfjs/toTfDataset.js';
export { toTfDataset } from './tfjs/toTfDataset.js';
export type {
  GpuBatch,
  GpuBatchField,
  GpuDtype,
  UploadBatchOptions,
  UploadRingOptions,
} from './webgpu/uploadBatch.js';
export { UploadRing, uploadBatch } from './webgpu/uploadBatch.js';
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
export { collectTransferables } from './workers/transferables.js';
export { WorkerCrashedError, WorkerLoadError } from './workers/workerErrors.js';
export type {
  WorkerCrashEvent,
  WorkerExecutorOptions,
  WorkerExecutorStats,
  WorkerLiveness,
} from './workers/workerExecutorOptions.js';
