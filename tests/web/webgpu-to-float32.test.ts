// UploadRing's toFloat32: the CPU uploads uint8 and a compute pass writes (x * scale - mean) / std
// as float32, checked against core's collate with the same toFloat32 (the CPU path).
//
// Tolerance, from the formula. Both paths compute x * mul[c] + add[c] with mul = scale / std[c] and
// add = -mean[c] / std[c] (core's one resolution). The CPU does it in float64 and rounds once to
// float32: |cpu - r| <= u|r|, u = 2^-24, r the exact value. The GPU uses mul and add rounded to f32
// (relative error u each), then an f32 product and an f32 sum, each correctly rounded in WGSL
// (u each; x <= 255 is exact): |gpu - r| <= u(3|x mul| + 2|add|) + O(u^2). So
// |gpu - cpu| <= u(4|x mul| + 3|add|) + O(u^2) <= 5u(|x mul| + |add|), the bound used below. A fused
// multiply-add (allowed to the shader compiler) only removes a rounding. One wrong channel, a
// missing scale or f16 arithmetic is off by far more.
import { type Batch, createCollate, type Sample, type ToFloat32Options } from '@medfusion/core';
import { UploadRing } from '@medfusion/web/webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDevice, noWebGpu, readBack, skipReason } from './webgpuFixtures.js';

const U = 2 ** -24;
const IMAGENET = {
  scale: 1 / 255,
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
} satisfies ToFloat32Options;

/** `count` samples of `h x w x c` uint8 with every byte value in every channel, plus a label. */
function samples(count: number, h: number, w: number, c: number, seed = 0): Sample[] {
  return Array.from({ length: count }, (_, i) => {
    const data = new Uint8Array(h * w * c);
    for (let j = 0; j < data.length; j++) data[j] = j * 7 + i * 31 + seed * 101; // mod 256
    return { image: { data, shape: [h, w, c] }, label: i };
  });
}

function collated(list: Sample[], toFloat32?: ToFloat32Options): Batch {
  const collate = createCollate({ batchBuffers: 0, ...(toFloat32 ? { toFloat32 } : {}) });
  return collate(list, { indices: list.map((_, i) => i) });
}

/** Largest |gpu - cpu| / bound over every value; the bound is 5u(|x mul| + |add|) per value. */
function worstOfBound(
  gpu: Float32Array,
  cpu: Float32Array,
  x: Uint8Array,
  o: ToFloat32Options,
): number {
  const table = (v: number | ArrayLike<number> | undefined, none: number) =>
    typeof v === 'number' ? [v] : v === undefined ? [none] : Array.from(v);
  const mean = table(o.mean, 0);
  const std = table(o.std, 1);
  const channels = Math.max(mean.length, std.length);
  let worst = 0;
  for (let j = 0; j < cpu.length; j++) {
    const c = j % channels;
    const s = std[std.length === 1 ? 0 : c]!;
    const mul = (o.scale ?? 1) / s;
    const add = -mean[mean.length === 1 ? 0 : c]! / s;
    const bound = 5 * U * (Math.abs(x[j]! * mul) + Math.abs(add)) || Number.MIN_VALUE;
    const ratio = Math.abs(gpu[j]! - cpu[j]!) / bound;
    if (!(ratio <= worst)) worst = ratio; // NaN sticks
  }
  return worst;
}

describe.skipIf(noWebGpu)(`UploadRing toFloat32 on WebGPU (SwiftShader)${skipReason}`, () => {
  let device: GPUDevice;
  const floats = async (buffer: GPUBuffer, byteLength: number) =>
    new Float32Array((await readBack(device, buffer, byteLength)).buffer);

  beforeAll(async () => {
    device = await newDevice();
  });
  afterAll(() => device?.destroy());

  it('224x224x3 with per-channel mean/std matches collate within 5u(|x mul| + |add|)', async () => {
    const list = samples(4, 224, 224, 3);
    const ring = new UploadRing(device, { toFloat32: IMAGENET });
    const raw = collated(list);
    const gpu = await ring.upload(raw);
    const image = gpu.image!;
    expect(image.dtype).toBe('float32');
    expect(image.shape).toEqual([4, 224, 224, 3]);
    expect(image.byteLength).toBe(4 * 224 * 224 * 3 * 4);
    expect(gpu.label!.dtype).toBe('int32'); // fields not named are uploaded as they are
    const cpu = collated(list, IMAGENET).image!.data as Float32Array;
    const got = await floats(image.buffer, image.byteLength);
    expect(worstOfBound(got, cpu, raw.image!.data as Uint8Array, IMAGENET)).toBeLessThanOrEqual(1);
    ring.destroy();
  });

  it('odd sizes: bytes not a multiple of 4, words not a multiple of the workgroup, 1 and 4 channels', async () => {
    const cases: [number, number, number, number, ToFloat32Options][] = [
      [3, 5, 7, 3, IMAGENET], // 315 bytes: 3 tail bytes, 79 words
      [1, 1, 1, 1, { scale: 2, mean: -3, std: 0.5 }], // 1 byte
      [5, 13, 1, 1, { scale: 1 / 255 }], // 65 bytes
      [2, 9, 11, 4, { mean: [1, 2, 3, 4], std: [5, 6, 7, 8] }], // 792 bytes, 4 channels
      [1, 129, 65, 3, { scale: 1 / 255, mean: 0.5, std: [0.25, 0.5, 1] }], // 25,155 bytes, 99 groups
    ];
    for (const [count, h, w, c, options] of cases) {
      const ring = new UploadRing(device, { slots: 2, toFloat32: options });
      const list = samples(count, h, w, c, h);
      const raw = collated(list);
      const gpu = await ring.upload(raw);
      const cpu = collated(list, options).image!.data as Float32Array;
      const got = await floats(gpu.image!.buffer, gpu.image!.byteLength);
      expect(got.length, `${count}x${h}x${w}x${c}`).toBe(cpu.length);
      expect(
        worstOfBound(got, cpu, raw.image!.data as Uint8Array, options),
        `${count}x${h}x${w}x${c}`,
      ).toBeLessThanOrEqual(1);
      ring.destroy();
    }
  });

  it('batch 128 at 224x224x3 (past 65,535 workgroups in one dimension) converts every value', async () => {
    const list = samples(128, 224, 224, 3);
    const raw = collated(list);
    const bytes = raw.image!.data.byteLength;
    expect(bytes / 4 / 64).toBeGreaterThan(device.limits.maxComputeWorkgroupsPerDimension);
    const ring = new UploadRing(device, { slots: 2, toFloat32: IMAGENET });
    const gpu = await ring.upload(raw);
    const cpu = collated(list, IMAGENET).image!.data as Float32Array;
    const got = await floats(gpu.image!.buffer, gpu.image!.byteLength);
    expect(worstOfBound(got, cpu, raw.image!.data as Uint8Array, IMAGENET)).toBeLessThanOrEqual(1);
    ring.destroy();
  });

  it('slot i + slots gets the new batch in the same buffers, the old values gone, no buffer made after the first lap', async () => {
    let made = 0;
    const createBuffer = device.createBuffer.bind(device);
    device.createBuffer = (d) => {
      if (d.label?.startsWith('medfusion-batch')) made++; // not readBack's staging buffers
      return createBuffer(d);
    };
    try {
      const ring = new UploadRing(device, { slots: 2, toFloat32: IMAGENET, maxBatchSize: 4 });
      const lists = [0, 1, 2, 3, 4, 5].map((k) => samples(k === 4 ? 3 : 4, 6, 5, 3, k + 1));
      const results = [];
      let afterFirstLap = 0;
      for (const [k, list] of lists.entries()) {
        const gpu = await ring.upload(collated(list));
        if (k === 1) afterFirstLap = made;
        const cpu = collated(list, IMAGENET).image!.data as Float32Array;
        const got = await floats(gpu.image!.buffer, gpu.image!.byteLength);
        expect(got.length).toBe(cpu.length); // batch 4 is 3 samples: byteLength follows
        const raw = collated(list).image!.data as Uint8Array;
        expect(worstOfBound(got, cpu, raw, IMAGENET), `upload ${k}`).toBeLessThanOrEqual(1);
        if (k >= 2) {
          // the slot's previous batch differs in (almost) every value: none of it is left
          const old = collated(lists[k - 2]!, IMAGENET).image!.data as Float32Array;
          let same = 0;
          for (let j = 0; j < got.length; j++) if (got[j] === old[j] && cpu[j] !== old[j]) same++;
          expect(same, `upload ${k}: values of upload ${k - 2}`).toBe(0);
          expect(gpu.image!.buffer).toBe(results[k - 2]!.buffer);
        }
        results.push({ buffer: gpu.image!.buffer });
      }
      expect(results[0]!.buffer).not.toBe(results[1]!.buffer);
      expect(made).toBe(afterFirstLap);
      ring.destroy();
    } finally {
      device.createBuffer = createBuffer;
    }
  });

  it('refuses a non-uint8 field, a batch bigger than the slot and values not splitting into channels', async () => {
    const ring = new UploadRing(device, { slots: 2, toFloat32: IMAGENET, maxBatchSize: 2 });
    const floatBatch = collated(samples(2, 2, 2, 3), IMAGENET);
    await expect(ring.upload(floatBatch)).rejects.toThrow(TypeError);
    await expect(ring.upload(floatBatch)).rejects.toThrow(
      /toFloat32\.fields names "image", which is float32/,
    );
    const i16 = { image: { data: new Int16Array(12), shape: [2, 2, 1, 3] } };
    await expect(ring.upload(i16)).rejects.toThrow(
      /toFloat32\.fields names "image", which is int16/,
    );
    await expect(ring.upload(collated(samples(3, 2, 2, 3)))).rejects.toThrow(
      /holds 3 samples, more than the ring's maxBatchSize 2/,
    );
    await expect(ring.upload(collated(samples(3, 2, 2, 3)))).rejects.toThrow(RangeError);
    const split = { image: { data: new Uint8Array(10), shape: [2, 5] } };
    await expect(ring.upload(split)).rejects.toThrow(
      /5 values a sample do not split into the 3 channels of toFloat32\.mean\/std/,
    );
    // refused batches left the ring untouched: the next one goes to slot 0, and fits
    const first = await ring.upload(collated(samples(2, 2, 2, 3)));
    await ring.upload(collated(samples(1, 2, 2, 3)));
    const third = await ring.upload(collated(samples(2, 2, 2, 3), undefined));
    expect(third.image!.buffer).toBe(first.image!.buffer);
    // a sample bigger than the first batch's: the slot was made for 2 of those
    await expect(ring.upload(collated(samples(2, 4, 2, 3)))).rejects.toThrow(
      /has 48 bytes, more than its slot holds \(24: maxBatchSize 2/,
    );
    ring.destroy();
  });
});

describe('UploadRing toFloat32 options (checked before any GPU work, in every engine)', () => {
  /** Only `createBuffer` is looked at before the options are checked. */
  const device = { createBuffer: () => ({}), queue: {} } as unknown as GPUDevice;
  const make = (toFloat32: unknown) => () => new UploadRing(device, { toFloat32 } as never);

  it('refuses bad scale, mean and std with TypeError/RangeError naming the option', () => {
    expect(make(null)).toThrow(TypeError);
    expect(make(null)).toThrow(/toFloat32 must be an options object, got null/);
    expect(make(3)).toThrow(/toFloat32 must be an options object/);
    expect(make({ scale: 0 })).toThrow(RangeError);
    expect(make({ scale: 0 })).toThrow(/toFloat32\.scale/);
    expect(make({ scale: '1' })).toThrow(TypeError);
    expect(make({ mean: Number.NaN })).toThrow(/toFloat32\.mean/);
    expect(make({ mean: 'x' })).toThrow(TypeError);
    expect(make({ mean: [] })).toThrow(/toFloat32\.mean/);
    expect(make({ mean: [0, Number.POSITIVE_INFINITY] })).toThrow(RangeError);
    expect(make({ std: [1, 0, 1] })).toThrow(RangeError);
    expect(make({ std: [1, 0, 1] })).toThrow(/toFloat32\.std\[1\]/);
    expect(make({ std: -1 })).toThrow(/toFloat32\.std/);
    expect(make({ mean: [0, 0], std: [1, 1, 1] })).toThrow(
      /toFloat32\.mean and toFloat32\.std must have the same number of channels, got 2 and 3/,
    );
    expect(make({ fields: 'image' })).toThrow(/toFloat32\.fields/);
    expect(() => new UploadRing(device, { toFloat32: IMAGENET, maxBatchSize: 0 })).toThrow(
      /maxBatchSize/,
    );
    // the same checks as collate's: the same values are refused there with the same names
    expect(() => createCollate({ toFloat32: { std: [1, 0, 1] } })).toThrow(/toFloat32\.std\[1\]/);
    // valid options make no GPU object yet (the stand-in has none)
    expect(make(IMAGENET)).not.toThrow();
  });
});
