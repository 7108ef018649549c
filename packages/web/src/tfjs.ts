// @medfusion/web/tfjs — TensorFlow.js adapters: batches → tensors, loaders → tf.data datasets.
// Needs the optional peer dependency @tensorflow/tfjs-core; `@medfusion/web` itself never imports it.

export type { AugmentBatchOptions } from './tfjs/augmentBatchTf.js';
export { augmentBatchTf } from './tfjs/augmentBatchTf.js';
export type { TensorDtype } from './tfjs/batchToTensors.js';
export { batchToTensors, defaultDtype, fieldToTensor } from './tfjs/batchToTensors.js';
export type { GpuTensorOptions } from './tfjs/gpuBatchToTensors.js';
export { gpuBatchToTensors } from './tfjs/gpuBatchToTensors.js';
export type {
  BatchMapping,
  BatchSource,
  TensorsSpec,
  TfDataset,
  TfDatasetOptions,
  TfElement,
} from './tfjs/toTfDataset.js';
export { toTfDataset } from './tfjs/toTfDataset.js';
