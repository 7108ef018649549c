import type { Batch, ToFloat32Options, TypedArray } from '@medfusion/core';
import {
  badRange,
  optionsBag,
  positiveInt,
  resolveToFloat32,
  showValue,
  string,
  type ToFloat32Plan,
  withDefault,
} from '@medfusion/core/internal';
import { ToFloat32Pass, type ToFloat32Target } from './toFloat32Pass.js';

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
  /**
   * Convert these uint8 fields to float32 on the GPU: the CPU writes the bytes
   * (4x fewer than float32) and a compute pass writes `(x * scale - mean) / std`
   * per channel into the field's buffer, which the batch hands out as `float32`.
   * Same meaning, defaults and checks as the `toFloat32` of core's collate and
   * DataLoader (collate those fields as `Uint8Array` then: leave `toFloat32` off
   * the loader). A named field that is not uint8 is refused with a TypeError.
   * @default no conversion: every field is uploaded as it is
   */
  toFloat32?: ToFloat32Options;
  /**
   * Make each slot's buffers once, for this many samples (of the first batch's
   * sample sizes), and never re-make them: a bigger batch is refused with a
   * RangeError naming `maxBatchSize`. Buffers (and bind groups over them) then
   * stay the same objects all run.
   * @default unset: buffers fit the batch at hand and are re-made bigger when a bigger batch comes
   */
  maxBatchSize?: number;
}

const USAGE_STORAGE = 0x80;
const USAGE_COPY_SRC = 0x04;
const USAGE_COPY_DST = 0x08;
const BATCH_USAGE = USAGE_STORAGE | USAGE_COPY_SRC | USAGE_COPY_DST;

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

/** One field of one slot: its buffer(s) and the batch field object handed out (reused). */
interface SlotField {
  /** The buffer handed out (float32 values for a converted field). */
  buffer: GPUBuffer;
  /** The conversion's input and bind group, for a `toFloat32` field. */
  convert: ToFloat32Target | undefined;
  /** Source bytes (the batch array's byteLength) the buffers hold. */
  capacity: number;
  out: GpuBatchField;
}

/** Samples in a field: its first dimension (1 for a scalar shape). */
function samplesOf(shape: readonly number[]): number {
  return shape.length === 0 ? 1 : shape[0]!;
}

const ceil4 = (n: number): number => Math.max(4, Math.ceil(n / 4) * 4);

/**
 * A small ring of GPUBuffer sets for batch uploads. Upload `i` writes slot
 * `i mod slots` with `queue.writeBuffer` straight from the batch's arrays (no
 * staging copy), then takes a fence (`queue.onSubmittedWorkDone()`). Before slot
 * `s` is written again, the ring waits on the fence taken one upload after
 * `s` was last written — by then the work that read it has been submitted —
 * so a buffer is never overwritten before the GPU is done with it. A slot's
 * buffers, and the {@link GpuBatch} object it returns, are made once and reused
 * on every lap (re-made only for a bigger batch, never with `maxBatchSize`).
 * With `toFloat32`, named uint8 fields are converted to float32 by a compute
 * pass submitted right after their bytes are written.
 *
 * @example
 * const ring = new UploadRing(device, {
 *   toFloat32: { scale: 1 / 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] },
 *   maxBatchSize: 64,
 * });
 * const gpu = await ring.upload(batch); // batch.image: Uint8Array → gpu.image: float32
 */
export class UploadRing {
  /** Number of slots. */
  readonly slots: number;
  private readonly device: GPUDevice;
  private readonly label: string;
  private readonly fields: Map<string, SlotField>[] = [];
  private readonly results: GpuBatch[] = [];
  private readonly fences: (Promise<void> | undefined)[] = [];
  private readonly plan: ToFloat32Plan | undefined;
  private readonly maxBatchSize: number | undefined;
  private pass: ToFloat32Pass | undefined;
  private readonly keys: string[] = [];
  private count = 0;
  private readonly tail = new ArrayBuffer(4);
  private readonly tail8 = new Uint8Array(this.tail);
  private readonly tail16 = new Uint16Array(this.tail);
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
    optionsBag('options', options);
    const slots = withDefault('slots', options.slots, 3, positiveInt);
    if (slots < 2) throw badRange('slots', 'an integer ≥ 2', slots);
    this.label = withDefault('label', options.label, 'medfusion-batch', string);
    this.plan = options.toFloat32 === undefined ? undefined : resolveToFloat32(options.toFloat32);
    this.maxBatchSize = withDefault('maxBatchSize', options.maxBatchSize, undefined, positiveInt);
    this.device = device;
    this.slots = slots;
    for (let i = 0; i < slots; i++) {
      this.fields.push(new Map());
      this.results.push({});
      this.fences.push(undefined);
    }
  }

  /** Upload `batch` (see {@link uploadBatch}); calls are serialised in call order. */
  upload(batch: Batch, fields?: readonly string[]): Promise<GpuBatch> {
    const run = this.queue.then(() => this.write(batch, fields));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Check one field before anything is written (so a refused batch leaves the
   * ring as it was); true when `toFloat32` converts it.
   */
  private check(key: string, batch: Batch, slot: SlotField | undefined): boolean {
    const field = batch[key];
    if (field === undefined) {
      throw new RangeError(`fields names "${key}", which the batch does not have`);
    }
    const { data, shape } = field;
    const dtype = dtypeOf(data, key);
    const samples = samplesOf(shape);
    const max = this.maxBatchSize;
    if (max !== undefined && samples > max) {
      throw new RangeError(
        `field "${key}" holds ${samples} samples, more than the ring's maxBatchSize ${max}`,
      );
    }
    if (max !== undefined && slot !== undefined && data.byteLength > slot.capacity) {
      throw new RangeError(
        `field "${key}" has ${data.byteLength} bytes, more than its slot holds (${slot.capacity}: maxBatchSize ${max} samples of the first batch's size)`,
      );
    }
    const plan = this.plan;
    if (plan === undefined || !plan.fields.has(key)) return false;
    if (dtype !== 'uint8') {
      throw new TypeError(
        `toFloat32.fields names "${key}", which is ${dtype}: the GPU conversion takes uint8 (collate the field without toFloat32)`,
      );
    }
    const perSample = data.length / Math.max(1, samples);
    if (perSample % plan.mul.length !== 0) {
      throw new RangeError(
        `field "${key}": ${perSample} values a sample do not split into the ${plan.mul.length} channels of toFloat32.mean/std`,
      );
    }
    return true;
  }

  /** Make (or re-make, bigger) one field's buffers in slot `slot`. */
  private make(slot: number, key: string, batch: Batch, convert: boolean): SlotField {
    const map = this.fields[slot]!;
    const old = map.get(key);
    const { data, shape } = batch[key]!;
    const samples = samplesOf(shape);
    const max = this.maxBatchSize;
    const capacity =
      max === undefined || samples === 0
        ? data.byteLength
        : Math.ceil(data.byteLength / samples) * max;
    if (old !== undefined) {
      old.buffer.destroy();
      if (old.convert) ToFloat32Pass.release(old.convert);
    }
    const label = `${this.label}:${key}:${slot}`;
    const buffer = this.device.createBuffer({
      label,
      size: ceil4(convert ? capacity * 4 : capacity),
      usage: BATCH_USAGE,
    });
    let target: ToFloat32Target | undefined;
    if (convert) {
      this.pass ??= new ToFloat32Pass(this.device, this.plan!, this.label);
      target = this.pass.target(buffer, capacity, label);
    }
    const out = old?.out ?? { buffer, byteLength: 0, shape: [], dtype: 'uint8' };
    out.buffer = buffer;
    const made: SlotField = { buffer, convert: target, capacity, out };
    map.set(key, made);
    return made;
  }

  /** `queue.writeBuffer` of `data`'s bytes at 0, the last 1–3 bytes padded to 4 (no copy of the rest). */
  private writeBytes(buffer: GPUBuffer, data: TypedArray): void {
    const queue = this.device.queue;
    const bytes = data.byteLength;
    const aligned = bytes & ~3;
    const per = data.BYTES_PER_ELEMENT;
    if (aligned > 0)
      queue.writeBuffer(buffer, 0, data as Uint8Array<ArrayBuffer>, 0, aligned / per);
    if (aligned < bytes) {
      this.tail16[0] = 0;
      this.tail16[1] = 0;
      const from = aligned / per;
      if (per === 1) for (let j = from; j < data.length; j++) this.tail8[j - from] = data[j]!;
      else this.tail16[0] = data[from]!; // 2-byte elements: one left over
      queue.writeBuffer(buffer, aligned, this.tail, 0, 4);
    }
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
    let keys = fields;
    if (keys === undefined) {
      const all = this.keys; // reused: no array per batch
      all.length = 0;
      for (const key in batch) all.push(key);
      keys = all;
    }
    const map = this.fields[slot]!;
    for (const key of keys) this.check(key, batch, map.get(key));
    const out = this.results[slot]!;
    let encoder: GPUCommandEncoder | undefined;
    let pass: GPUComputePassEncoder | undefined;
    for (const key of keys) {
      const convert = this.check(key, batch, map.get(key));
      const { data, shape } = batch[key]!;
      let f = map.get(key);
      if (f === undefined || data.byteLength > f.capacity) f = this.make(slot, key, batch, convert);
      if (f.convert !== undefined) {
        this.writeBytes(f.convert.input, data);
        encoder ??= this.device.createCommandEncoder({ label: `${this.label}:toFloat32` });
        pass ??= encoder.beginComputePass();
        this.pass!.encode(pass, f.convert, data.length);
      } else {
        this.writeBytes(f.buffer, data);
      }
      const o = f.out;
      o.byteLength = f.convert ? data.length * 4 : data.byteLength;
      o.dtype = f.convert ? 'float32' : dtypeOf(data, key);
      o.shape.length = shape.length;
      for (let d = 0; d < shape.length; d++) o.shape[d] = shape[d]!;
      out[key] = o;
    }
    for (const key in out) if (fields ? !fields.includes(key) : !(key in batch)) delete out[key];
    if (encoder !== undefined) {
      pass!.end();
      this.device.queue.submit([encoder.finish()]);
    }
    this.count++;
    this.fences[slot] = this.device.queue.onSubmittedWorkDone();
    return out;
  }

  /** Destroy every buffer of the ring; batches it returned become invalid. */
  destroy(): void {
    this.destroyed = true;
    for (const map of this.fields) {
      for (const f of map.values()) {
        f.buffer.destroy();
        if (f.convert) ToFloat32Pass.release(f.convert);
      }
      map.clear();
    }
    this.pass?.destroy();
    if (defaultRings.get(this.device) === this) defaultRings.delete(this.device);
  }
}

/** The ring `uploadBatch` uses per device when given none (made on first use). */
export const defaultRings = new WeakMap<GPUDevice, UploadRing>();
