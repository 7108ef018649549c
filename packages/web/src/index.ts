// @medfusion/web — browser adapters: workers, OPFS/IndexedDB, sources, TF.js, WebGPU.

export type { GpuTensorOptions, TensorDtype } from './batchToTensors.js';
export {
  batchToTensors,
  defaultDtype,
  fieldToTensor,
  gpuBatchToTensors,
} from './batchToTensors.js';
export type {
  CsvImageDatasetOptions,
  CsvImageSample,
  CsvInvalidRow,
} from './CsvImageDataset.js';
export { CsvFormatError, CsvImageDataset } from './CsvImageDataset.js';
export type { WebCachedDatasetOptions } from './createCachedDataset.js';
export { createCachedDataset, storeForCacheDir } from './createCachedDataset.js';
export type { WorkerExecutor } from './createWorkerExecutor.js';
export { createWorkerExecutor } from './createWorkerExecutor.js';
export type { DecodedImage, ImageDecoderOptions } from './decodeImage.js';
export { ImageDecodeError, ImageDecoder } from './decodeImage.js';
export { isCrossOriginIsolated } from './env.js';
export type { ExposeLoaderOptions, WorkerLoader } from './exposeLoader.js';
export { exposeLoader } from './exposeLoader.js';
export type { IdbStoreOptions, IdbStoreUsage } from './IdbStore.js';
export { IdbStore } from './IdbStore.js';
export type {
  CachedTypedArray,
  MemoryMappedCacheOptions,
  MemoryMappedCacheStats,
} from './MemoryMappedCache.js';
export { MemoryMappedCache } from './MemoryMappedCache.js';
export type { OpfsStoreOptions, OpfsStoreUsage } from './OpfsStore.js';
export { OpfsStore } from './OpfsStore.js';
export { defaultOriginLimiter, OriginLimiter } from './OriginLimiter.js';
export type {
  ParquetColumns,
  ParquetSample,
  ParquetSourceOptions,
  ParquetStats,
} from './ParquetSource.js';
export { ParquetSource } from './ParquetSource.js';
export type { HttpOptions, RangeReaderOptions, ReadOptions } from './RangeReader.js';
export { RangeReader } from './RangeReader.js';
export {
  ChecksumMismatchError,
  ObjectChangedError,
  RemoteReadError,
  SourceFormatError,
} from './RemoteError.js';
export { sha256Hex } from './sha256.js';
export type { StoreErrorCode } from './storeErrors.js';
export { isQuotaError, StoreError } from './storeErrors.js';
export type { TarIndexFile, TarMember, TarSampleEntry } from './tarIndex.js';
export {
  decodeTarIndex,
  encodeTarIndex,
  groupSamples,
  indexTarStream,
  splitSampleName,
} from './tarIndex.js';
export type {
  BatchMapping,
  BatchSource,
  TensorsSpec,
  TfDataset,
  TfDatasetOptions,
  TfElement,
} from './toTfDataset.js';
export { toTfDataset } from './toTfDataset.js';
export { collectTransferables } from './transferables.js';
export type {
  GpuBatch,
  GpuBatchField,
  GpuDtype,
  UploadBatchOptions,
  UploadRingOptions,
} from './uploadBatch.js';
export { UploadRing, uploadBatch } from './uploadBatch.js';
export type { UrlPolicy } from './urlPolicy.js';
export { UrlNotAllowedError } from './urlPolicy.js';
export type {
  SampleRange,
  ShardManifest,
  ShardManifestEntry,
  WebDatasetSample,
  WebDatasetSourceOptions,
  WebDatasetStats,
} from './WebDatasetSource.js';
export { WebDatasetSource } from './WebDatasetSource.js';
export { withWebLock } from './webLocks.js';
export { WorkerCrashedError, WorkerLoadError } from './workerErrors.js';
export type {
  WorkerCrashEvent,
  WorkerExecutorOptions,
  WorkerExecutorStats,
  WorkerLiveness,
} from './workerExecutorOptions.js';
