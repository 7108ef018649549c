import type { Batch } from '@medfusion/core';
import {
  arrayOf,
  badType,
  optionsBag,
  positiveInt,
  string,
  withDefault,
} from '@medfusion/core/internal';
import { defaultRings, type GpuBatch, UploadRing, type UploadRingOptions } from './uploadRing.js';

/** Options of {@link uploadBatch}. */
export interface UploadBatchOptions {
  /**
   * The buffer ring to use; by default one ring per device, made on first use
   * with {@link UploadRingOptions.slots}.
   */
  ring?: UploadRing;
  /**
   * Slots of the per-device default ring (ignored once it exists or with `ring`).
   * @default 3
   */
  slots?: number;
  /** Upload only these fields. @default every field */
  fields?: readonly string[];
}

/**
 * Write a collated batch's fields into GPUBuffers (usage STORAGE | COPY_SRC |
 * COPY_DST) taken from a small ring, so a buffer is not overwritten before the
 * GPU is done with it (see {@link UploadRing}). The result stays valid until
 * `slots - 1` further uploads on the same ring. With the TF.js WebGPU backend
 * (same device: `tf.backend().device`), float32/int32 fields become tensors via
 * `gpuBatchToTensors` or `tf.tensor({ buffer, zeroCopy }, shape, dtype)`.
 *
 * @example
 * const device = (tf.backend() as WebGPUBackend).device;
 * for await (const batch of loader) {
 *   const gpu = await uploadBatch(device, batch);
 *   runMyPipeline(gpu.image.buffer, gpu.label.buffer);
 * }
 */
export function uploadBatch(
  device: GPUDevice,
  batch: Batch,
  options: UploadBatchOptions = {},
): Promise<GpuBatch> {
  optionsBag('options', options);
  const fields = withDefault('fields', options.fields, undefined, (name, v) =>
    arrayOf(name, v, string, 'an array of field names'),
  );
  let ring = withDefault('ring', options.ring, undefined, (name, v) => {
    if (!(v instanceof UploadRing)) throw badType(name, 'an UploadRing', v);
    return v;
  });
  withDefault('slots', options.slots, undefined, positiveInt);
  if (ring === undefined) {
    ring = defaultRings.get(device);
    if (ring === undefined) {
      ring = new UploadRing(device, options.slots === undefined ? {} : { slots: options.slots });
      defaultRings.set(device, ring);
    }
  }
  return ring.upload(batch, fields);
}
