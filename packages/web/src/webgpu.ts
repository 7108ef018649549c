// @medfusion/web/webgpu — batches into WebGPU buffers through a ring of reused buffers.
// Plain WebGPU, no TF.js; `gpuBatchToTensors` (in `@medfusion/web/tfjs`) turns the result into tensors.

export type {
  GpuBatch,
  GpuBatchField,
  GpuDtype,
  UploadBatchOptions,
  UploadRingOptions,
} from './webgpu/uploadBatch.js';
export { UploadRing, uploadBatch } from './webgpu/uploadBatch.js';
