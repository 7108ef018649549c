import { createCollate, DataLoader, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const sample = (v: number) => ({ x: Float32Array.of(v, v), label: v });

describe('collate output pool', () => {
  it('reuses a batch buffer only after batchBuffers more batches', () => {
    const collate = createCollate({ batchBuffers: 2 });
    const b0 = collate([sample(0), sample(1)], { indices: [0, 1] });
    const b1 = collate([sample(2), sample(3)], { indices: [2, 3] });
    expect(b1.x!.data.buffer).not.toBe(b0.x!.data.buffer);
    expect(Array.from(b0.x!.data)).toEqual([0, 0, 1, 1]); // still intact one batch later
    const b2 = collate([sample(4), sample(5)], { indices: [4, 5] });
    expect(b2.x!.data.buffer).toBe(b0.x!.data.buffer); // ring came back
    expect(Array.from(b0.x!.data)).toEqual([4, 4, 5, 5]);
    // a shorter batch is a view on the same pooled storage
    const b3 = collate([sample(6)], { indices: [6] });
    expect(b3.x!.data.buffer).toBe(b1.x!.data.buffer);
    expect(b3.x!.shape).toEqual([1, 2]);
  });

  it('batchBuffers 0 gives every batch its own arrays', () => {
    const collate = createCollate({ batchBuffers: 0 });
    const b0 = collate([sample(0)], { indices: [0] });
    const b1 = collate([sample(1)], { indices: [1] });
    const b2 = collate([sample(2)], { indices: [2] });
    expect(new Set([b0.x!.data.buffer, b1.x!.data.buffer, b2.x!.data.buffer]).size).toBe(3);
    expect(Array.from(b0.x!.data)).toEqual([0, 0]);
  });

  it('through a DataLoader the last batchBuffers batches stay valid', async () => {
    const loader = new DataLoader(fromArray(Array.from({ length: 12 }, (_, i) => sample(i))), {
      batchSize: 2,
      batchBuffers: 3,
    });
    const kept: { data: Float32Array; expected: number[] }[] = [];
    for await (const b of loader) {
      kept.push({ data: b.x!.data as Float32Array, expected: Array.from(b.x!.data) });
      for (const k of kept.slice(-3)) expect(Array.from(k.data)).toEqual(k.expected);
    }
    expect(kept).toHaveLength(6);
  });

  it('rejects a bad batchBuffers or toFloat32 option, naming it', () => {
    expect(() => createCollate({ batchBuffers: -1 })).toThrow(
      /batchBuffers must be a non-negative integer, got -1/,
    );
    expect(() => createCollate({ toFloat32: { std: 0 } })).toThrow(
      /toFloat32.std\[0\] must be a finite positive number, got 0/,
    );
    expect(() => createCollate({ toFloat32: { mean: [1, 2], std: [1, 2, 3] } })).toThrow(
      RangeError,
    );
  });
});
