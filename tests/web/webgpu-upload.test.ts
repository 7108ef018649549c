import { DataLoader, fromArray } from '@medfusion/core';
import { batchToTensors, gpuBatchToTensors } from '@medfusion/web/tfjs';
import { type GpuBatch, UploadRing, uploadBatch } from '@medfusion/web/webgpu';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDevice, noWebGpu, readBack, skipReason } from './webgpuFixtures.js';

const bytesOf = (a: ArrayBufferView) =>
  new Uint8Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));

const samples = Array.from({ length: 8 }, (_, i) => ({
  image: Uint8Array.from({ length: 7 }, (_, j) => (i * 7 + j) % 251), // odd byte count: tail padding path
  tabular: Float32Array.of(i, -i, i / 4),
  label: i % 3,
}));

describe.skipIf(noWebGpu)(`uploadBatch on WebGPU (SwiftShader)${skipReason}`, () => {
  let device: GPUDevice;

  beforeAll(async () => {
    device = await newDevice();
  });

  afterAll(() => device?.destroy());

  it('round-trips every field of a batch through GPUBuffers with the right usage', async () => {
    const loader = new DataLoader(fromArray(samples), { batchSize: 4 });
    const ring = new UploadRing(device, { slots: 2 });
    for await (const batch of loader) {
      const gpu = await uploadBatch(device, batch, { ring });
      expect(Object.keys(gpu).sort()).toEqual(['image', 'label', 'tabular']);
      for (const key of Object.keys(batch)) {
        const f = gpu[key]!;
        expect(f.shape).toEqual(batch[key]!.shape);
        expect(f.byteLength).toBe(batch[key]!.data.byteLength);
        expect(
          f.buffer.usage &
            (GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST),
        ).toBe(GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST);
        expect(await readBack(device, f.buffer, f.byteLength)).toEqual(bytesOf(batch[key]!.data));
      }
      expect(gpu.image!.dtype).toBe('uint8');
      expect(gpu.label!.dtype).toBe('int32');
    }
    ring.destroy();
  });

  it('reuses ring slots only after slots uploads, and earlier batches stay intact until then', async () => {
    const ring = new UploadRing(device, { slots: 3 });
    const loader = new DataLoader(fromArray(samples), { batchSize: 2, batchBuffers: 0 });
    const gpus: GpuBatch[] = [];
    const expected: Uint8Array[] = [];
    for await (const batch of loader) {
      gpus.push(await ring.upload(batch));
      expected.push(bytesOf(batch.tabular!.data));
      const n = gpus.length;
      // the last `slots` uploads are all still readable
      for (let k = Math.max(0, n - 3); k < n; k++) {
        expect(
          await readBack(device, gpus[k]!.tabular!.buffer, gpus[k]!.tabular!.byteLength),
        ).toEqual(expected[k]);
      }
    }
    expect(gpus).toHaveLength(4);
    expect(gpus[3]!.tabular!.buffer).toBe(gpus[0]!.tabular!.buffer);
    expect(new Set(gpus.slice(0, 3).map((g) => g.tabular!.buffer)).size).toBe(3);
    ring.destroy();
    expect(() => new UploadRing(device, { slots: 1 })).toThrow(
      /slots must be an integer ≥ 2, got 1/,
    );
  });
  it('serialises concurrent uploads in call order and uploads only the named fields', async () => {
    const ring = new UploadRing(device, { slots: 3 });
    const batches = [0, 1, 2, 3, 4].map((k) => ({
      v: { data: Float32Array.of(k, k + 0.5, -k), shape: [1, 3] },
      skip: { data: Int32Array.of(k), shape: [1] },
    }));
    const first = await Promise.all(batches.slice(0, 3).map((b) => ring.upload(b, ['v'])));
    for (const [k, g] of first.entries()) {
      expect(Object.keys(g)).toEqual(['v']);
      expect(await readBack(device, g.v!.buffer, g.v!.byteLength)).toEqual(
        bytesOf(batches[k]!.v.data),
      );
    }
    // two more at once: they wait on fences, reuse slots 0 and 1, and leave slot 2 intact
    const more = await Promise.all(
      batches.slice(3).map((b) => uploadBatch(device, b, { ring, fields: ['v'] })),
    );
    expect(more[0]!.v!.buffer).toBe(first[0]!.v!.buffer);
    expect(await readBack(device, more[1]!.v!.buffer, 12)).toEqual(bytesOf(batches[4]!.v.data));
    expect(await readBack(device, first[2]!.v!.buffer, 12)).toEqual(bytesOf(batches[2]!.v.data));
    await expect(ring.upload(batches[0]!, ['nope'])).rejects.toThrow(/fields names "nope"/);
    ring.destroy();
    await expect(ring.upload(batches[0]!)).rejects.toThrow(/destroyed/);
  });
});

describe.skipIf(noWebGpu)(
  `tensors from uploaded buffers on the TF.js WebGPU backend${skipReason}`,
  () => {
    beforeAll(async () => {
      expect(await tf.setBackend('webgpu')).toBe(true);
      await tf.ready();
    });

    it('tf.tensor({ buffer }) sees the uploaded values, copied or zero-copy', async () => {
      const device = (tf.backend() as unknown as { device: GPUDevice }).device;
      const loader = new DataLoader(fromArray(samples), {
        batchSize: 8,
        toFloat32: { scale: 1 / 255 },
      });
      for await (const batch of loader) {
        const gpu = await uploadBatch(device, batch);
        const before = tf.memory().numTensors;
        const copied = gpuBatchToTensors(gpu);
        expect(copied.image!.shape).toEqual([8, 7]);
        const img = await copied.image!.data();
        const want = batch.image!.data;
        for (let i = 0; i < want.length; i++) expect(img[i]).toBeCloseTo(want[i]!, 6);
        expect(Array.from(await copied.label!.data())).toEqual(Array.from(batch.label!.data));
        const zero = gpuBatchToTensors({ tabular: gpu.tabular! }, { zeroCopy: true });
        const sum = tf.sum(zero.tabular!);
        const expectSum = Array.from(batch.tabular!.data).reduce((a, b) => a + b, 0);
        expect((await sum.data())[0]).toBeCloseTo(expectSum, 4);
        tf.dispose([sum, ...Object.values(copied), ...Object.values(zero)]);
        expect(tf.memory().numTensors).toBe(before);
      }
      const raw = await uploadBatch(device, {
        px: { data: Uint8Array.of(1, 2, 3, 4), shape: [1, 4] },
      });
      expect(() => gpuBatchToTensors(raw)).toThrow(/field "px" is uint8/);
    });
  },
);

describe('without WebGPU', () => {
  it('uploadBatch and UploadRing refuse a missing device with a TypeError naming it', async () => {
    const batch = { x: { data: Float32Array.of(1, 2), shape: [2] } };
    const none = (navigator.gpu ? undefined : null) as unknown as GPUDevice;
    await expect(async () => uploadBatch(none, batch)).rejects.toThrow(
      /device must be a GPUDevice/,
    );
    expect(() => new UploadRing(none)).toThrow(/device must be a GPUDevice/);
  });

  it('batchToTensors (the path without WebGPU) gives the batch on WebGL, else the CPU', async () => {
    if (!(await tf.setBackend('webgl').catch(() => false))) await tf.setBackend('cpu');
    await tf.ready();
    const loader = new DataLoader(fromArray(samples), { batchSize: 4 });
    for await (const batch of loader) {
      const t = batchToTensors(batch, { image: 'float32', label: 'int32' });
      expect(t.image!.shape).toEqual(batch.image!.shape);
      expect(Array.from(await t.tabular!.data())).toEqual(Array.from(batch.tabular!.data));
      expect(Array.from(await t.label!.data())).toEqual(Array.from(batch.label!.data));
      tf.dispose(Object.values(t));
    }
  });
});
