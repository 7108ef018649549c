import type { Batch, TypedArray } from '@medfusion/core';
import { badRange, positiveInt, showValue } from '@medfusion/core/internal';

/** One batch field in GPU memory. */
export interface GpuBatchField {
  /** Buffer holding the field's bytes from offset 0 (usage STORAGE | COPY_SRC | COPY_DST). */
  buffer: GPUBuffer;
  /** Bytes of data written (the buffer may be larger). */
  byteLength: number;
  /** `[batchSize, ...sampleShape]`, as in the batch. */
  shape: number[];
  /** Element type, e.g. `'float32'`, `'int32'`, `'uint8'`. */
  dtype: GpuDtype;
}

/** A batch uploaded to the GPU: one {@link GpuBatchField} per batch field. */
export type GpuBatch = Record<string, GpuBatchField>;

/** Element type names of uploaded fields. */
export type GpuDtype =
  | 'float32'
  | 'float64'
  | 'int32'
  | 'uint32'
  | 'int16'
  | 'uint16'
  | 'int8'
  | 'uint8';

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

/** Options of {@link UploadRing}. */
export interface UploadRingOptions {
  /**
   * Batches in flight: a returned {@link GpuBatch} stays valid until `slots - 1`
   * further uploads, and the CPU never runs more than `slots - 1` batches ahead of the GPU.
   * @default 3
   */
  slots?: number;
  /** Debug label prefix for the buffers. @default 'medfusion-batch' */
  label?: string;
}

const USAGE_STORAGE = 0x80;
const USAGE_COPY_SRC = 0x04;
const USAGE_COPY_DST = 0x08;

function dtypeOf(data: TypedArray, key: string): GpuDtype {
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof Int32Array) return 'int32';
  if (data instanceof Uint8Array || data instanceof Uint8ClampedArray) return 'uint8';
  if (data instanceof Uint32Array) return 'uint32';
  if (data instanceof Float64Array) return 'float64';
  if (data instanceof Int16Array) return 'int16';
  if (data instanceof Uint16Array) return 'uint16';
  if (data instanceof Int8Array) return 'int8';
  throw new TypeError(
    `field "${key}" has an unsupported element type ${Object.prototype.toString.call(data)}`,
  );
}

/**
 * A small ring of GPUBuffer sets for batch uploads. Upload `i` writes slot
 * `i mod slots` with `queue.writeBuffer` (ordered after every command already
 * submitted), then takes a fence (`queue.onSubmittedWorkDone()`). Before slot
 * `s` is written again, the ring waits on the fence taken one upload after
 * `s` was last written — by then the work that read it has been submitted —
 * so a buffer is never overwritten before the GPU is done with it.
 */
export class UploadRing {
  /** Number of slots. */
  readonly slots: number;
  private readonly device: GPUDevice;
  private readonly label: string;
  private readonly buffers: Map<string, GPUBuffer>[] = [];
  private readonly fences: (Promise<void> | undefined)[] = [];
  private count = 0;
  private tail = new Uint8Array(4);
  private destroyed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(device: GPUDevice, options: UploadRingOptions = {}) {
    if (
      device === null ||
      typeof device !== 'object' ||
      typeof device.createBuffer !== 'function'
    ) {
      throw new TypeError(`device must be a GPUDevice, got ${showValue(device)}`);
    }
    const slots = options.slots ?? 3;
    if (positiveInt('slots', slots) < 2) throw badRange('slots', 'an integer ≥ 2', slots);
    this.device = device;
    this.slots = slots;
    this.label = options.label ?? 'medfusion-batch';
    for (let i = 0; i < slots; i++) {
      this.buffers.push(new Map());
      this.fences.push(undefined);
    }
  }

  /** Upload `batch` (see {@link uploadBatch}); calls are serialised in call order. */
  upload(batch: Batch, fields?: readonly string[]): Promise<GpuBatch> {
    const run = this.queue.then(() => this.write(batch, fields));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(batch: Batch, fields: readonly string[] | undefined): Promise<GpuBatch> {
    if (this.destroyed) throw new Error('UploadRing was destroyed');
    const i = this.count;
    const slot = i % this.slots;
    // Wait for the GPU to finish work submitted before upload (i - slots + 1),
    // i.e. everything that used this slot's previous contents.
    const fence = this.fences[(i + 1) % this.slots];
    if (i >= this.slots && fence !== undefined) await fence;
    if (this.destroyed) throw new Error('UploadRing was destroyed');
    const keys = fields ?? Object.keys(batch);
    const map = this.buffers[slot]!;
    const out: GpuBatch = {};
    for (const key of keys) {
      const field = batch[key];
      if (field === undefined)
        throw new RangeError(`fields names "${key}", which the batch does not have`);
      const data = field.data;
      const dtype = dtypeOf(data, key);
      const byteLength = data.byteLength;
      const size = Math.max(4, Math.ceil(byteLength / 4) * 4);
      let buffer = map.get(key);
      if (buffer === undefined || buffer.size < size) {
        buffer?.destroy();
        buffer = this.device.createBuffer({
          label: `${this.label}:${key}:${slot}`,
          size,
          usage: USAGE_STORAGE | USAGE_COPY_SRC | USAGE_COPY_DST,
        });
        map.set(key, buffer);
      }
      const bytes = new Uint8Array(data.buffer, data.byteOffset, byteLength);
      const aligned = byteLength & ~3;
      if (aligned > 0) this.device.queue.writeBuffer(buffer, 0, bytes, 0, aligned);
      if (aligned < byteLength) {
        this.tail.fill(0);
        this.tail.set(bytes.subarray(aligned));
        this.device.queue.writeBuffer(buffer, aligned, this.tail, 0, 4);
      }
      out[key] = { buffer, byteLength, shape: field.shape.slice(), dtype };
    }
    this.count++;
    this.fences[slot] = this.device.queue.onSubmittedWorkDone();
    return out;
  }

  /** Destroy every buffer of the ring; batches it returned become invalid. */
  destroy(): void {
    this.destroyed = true;
    for (const map of this.buffers) {
      for (const b of map.values()) b.destroy();
      map.clear();
    }
    if (rings.get(this.device) === this) rings.delete(this.device);
  }
}

const rings = new WeakMap<GPUDevice, UploadRing>();

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
  let ring = options.ring;
  if (ring === undefined) {
    ring = rings.get(device);
    if (ring === undefined) {
      ring = new UploadRing(device, options.slots === undefined ? {} : { slots: options.slots });
      rings.set(device, ring);
    }
  }
  return ring.upload(batch, options.fields);
}
