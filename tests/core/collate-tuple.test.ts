import { CollateError, createCollate, DataLoader, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('default collate on tuple samples (image, tabular, label)', () => {
  it('collates by position into fields "0", "1", "2"; labelFields makes a position Int32Array', () => {
    const samples = [
      [Uint8Array.of(1, 2), Float32Array.of(0.5), 2],
      [Uint8Array.of(3, 4), Float32Array.of(1.5), 0],
    ] as const;
    const plain = createCollate()(samples, { indices: [0, 1] });
    expect(Object.keys(plain).sort()).toEqual(['0', '1', '2']);
    expect(Array.from(plain['0']!.data)).toEqual([1, 2, 3, 4]);
    expect(plain['0']!.shape).toEqual([2, 2]);
    expect(plain['2']!.data).toBeInstanceOf(Float32Array);
    const labelled = createCollate({ labelFields: ['2'] })(samples, { indices: [0, 1] });
    expect(labelled['2']!.data).toBeInstanceOf(Int32Array);
    expect(Array.from(labelled['2']!.data)).toEqual([2, 0]);
  });

  it('works through a DataLoader and rejects bare typed-array samples by index', async () => {
    const loader = new DataLoader(
      fromArray([
        [Float32Array.of(1), 1],
        [Float32Array.of(2), 0],
        [Float32Array.of(3), 1],
      ] as const),
      { batchSize: 2, labelFields: ['1'] },
    );
    const got: number[][] = [];
    for await (const b of loader) {
      expect(b['1']!.data).toBeInstanceOf(Int32Array);
      got.push(Array.from(b['0']!.data));
    }
    expect(got).toEqual([[1, 2], [3]]);
    const bare = createCollate();
    expect(() => bare([Float32Array.of(1) as never], { indices: [9] })).toThrow(CollateError);
    expect(() => bare([Float32Array.of(1) as never], { indices: [9] })).toThrow(
      /Sample 9.*wrap a bare array/,
    );
  });
});
