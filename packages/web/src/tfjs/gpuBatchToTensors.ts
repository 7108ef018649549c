import { bool, optionsBag, withDefault } from '@medfusion/core/internal';
import { type Tensor, tensor } from '@tensorflow/tfjs-core';
import type { GpuBatch } from '../webgpu/uploadRing.js';

/** Options of {@link gpuBatchToTensors}. */
export interface GpuTensorOptions {
  /**
   * Bind the ring's buffers directly instead of copying them: no copy, but a
   * tensor then reads whatever the next upload to that slot writes — dispose
   * it before `slots - 1` further uploads.
   * @default false
   */
  zeroCopy?: boolean;
}

/**
 * Tensors on the TF.js WebGPU backend from an uploaded batch (see
 * `uploadBatch`, which must have used the backend's own device,
 * `tf.backend().device`). Only float32 and int32 fields can become tensors
 * (collate images with `toFloat32` for this path).
 *
 * @example
 * const t = gpuBatchToTensors(await uploadBatch(device, batch));
 */
export function gpuBatchToTensors(
  gpu: GpuBatch,
  options: GpuTensorOptions = {},
): Record<string, Tensor> {
  const zeroCopy = withDefault('zeroCopy', optionsBag('options', options).zeroCopy, false, bool);
  const out: Record<string, Tensor> = {};
  try {
    for (const [key, field] of Object.entries(gpu)) {
      if (field.dtype !== 'float32' && field.dtype !== 'int32') {
        throw new TypeError(
          `field "${key}" is ${field.dtype}; WebGPU tensors take float32 or int32 only`,
        );
      }
      out[key] = tensor({ buffer: field.buffer, zeroCopy }, field.shape, field.dtype);
    }
  } catch (e) {
    for (const t of Object.values(out)) t.dispose();
    throw e;
  }
  return out;
}
