// @medfusion/web — browser adapters: workers, OPFS/IndexedDB, sources, TF.js, WebGPU.

export type { CsvImageDatasetOptions, CsvImageSample } from './CsvImageDataset.js';
export { CsvFormatError, CsvImageDataset } from './CsvImageDataset.js';
export type { DecodedImage, ImageDecoderOptions } from './decodeImage.js';
export { ImageDecodeError, ImageDecoder } from './decodeImage.js';
export { isCrossOriginIsolated } from './env.js';
