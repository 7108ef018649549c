// @medfusion/web/webgpu — batches into WebGPU buffers through a ring of reused buffers,
// uint8 fields optionally converted to normalised float32 on the GPU (UploadRing's toFloat32).
// Plain WebGPU, no TF.js; `gpuBatchToTensors` (in `@medfusion/web/tfjs`) turns the result into tensors.

export type { UploadBatchOptions } from './webgpu/uploadBatch.js';
export { uploadBatch } from './webgpu/uploadBatch.js';
export type {
  GpuBatch,
  GpuBatchField,
  GpuDtype,
  UploadRingOptions,
} from './webgpu/uploadRing.js';
export { UploadRing } from './webgpu/uploadRing.js';
