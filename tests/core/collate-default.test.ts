import { CollateError, createCollate } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('default collate', () => {
  it('stacks flat typed arrays batch-first as [B, n], labels as Int32Array, other numbers as Float32Array', () => {
    const collate = createCollate();
    const samples = [
      {
        image: Uint8Array.of(1, 2, 3, 4),
        tabular: Float32Array.of(0.5, 1.5),
        label: 3,
        weight: 0.25,
      },
      { image: Uint8Array.of(5, 6, 7, 8), tabular: Float32Array.of(2.5, 3.5), label: 1, weight: 2 },
    ];
    const b = collate(samples, { indices: [10, 11] });
    expect(b.image!.data).toBeInstanceOf(Uint8Array);
    expect(Array.from(b.image!.data)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(b.image!.shape).toEqual([2, 4]);
    expect(b.tabular!.data).toBeInstanceOf(Float32Array);
    expect(Array.from(b.tabular!.data)).toEqual([0.5, 1.5, 2.5, 3.5]);
    expect(b.tabular!.shape).toEqual([2, 2]);
    expect(b.label!.data).toBeInstanceOf(Int32Array);
    expect(Array.from(b.label!.data)).toEqual([3, 1]);
    expect(b.label!.shape).toEqual([2]);
    expect(b.weight!.data).toBeInstanceOf(Float32Array);
    expect(Array.from(b.weight!.data)).toEqual([0.25, 2]);
  });

  it('keeps per-sample shapes given as { data, shape } or as an xShape sibling', () => {
    const collate = createCollate();
    const px = (base: number) => Uint8Array.from({ length: 6 }, (_, i) => base + i);
    const shaped = collate(
      [
        { image: { data: px(0), shape: [2, 3, 1] }, label: 0 },
        { image: { data: px(10), shape: [2, 3, 1] }, label: 1 },
        { image: { data: px(20), shape: [2, 3, 1] }, label: 2 },
      ],
      { indices: [0, 1, 2] },
    );
    expect(shaped.image!.shape).toEqual([3, 2, 3, 1]);
    expect(Array.from(shaped.image!.data)).toEqual([
      0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25,
    ]);
    const sibling = collate(
      [
        { image: px(0), imageShape: [3, 2], label: 4 },
        { image: px(1), imageShape: [3, 2], label: 5 },
      ],
      { indices: [0, 1] },
    );
    expect(Object.keys(sibling).sort()).toEqual(['image', 'label']);
    expect(sibling.image!.shape).toEqual([2, 3, 2]);
    expect(Array.from(sibling.image!.data.subarray(6))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('normalises into Float32Array in one pass when toFloat32 asks (scalar and per-channel)', () => {
    const one = createCollate({ toFloat32: { scale: 1 / 255, mean: 0.5, std: 0.5 } });
    const b = one([{ image: Uint8Array.of(0, 255, 51), label: 0 }], { indices: [0] });
    expect(b.image!.data).toBeInstanceOf(Float32Array);
    const got = Array.from(b.image!.data);
    for (const [i, v] of [-1, 1, -0.6].entries()) expect(got[i]).toBeCloseTo(v, 5);
    const rgb = createCollate({ toFloat32: { mean: [10, 20, 30], std: [1, 2, 5] } });
    const c = rgb([{ image: Uint8Array.of(10, 20, 30, 11, 24, 40) }], { indices: [0] });
    expect(Array.from(c.image!.data)).toEqual([0, 0, 0, 1, 2, 2]);
    expect(() => rgb([{ image: Uint8Array.of(1, 2, 3, 4) }], { indices: [0] })).toThrow(
      /3 channels/,
    );
  });

  it('names the sample index and the field when shapes or kinds differ from the first sample', () => {
    const collate = createCollate();
    const ok = { image: new Float32Array(4), label: 1 };
    const tryCollate = (bad: object) => {
      try {
        collate([ok, ok, bad as typeof ok], { indices: [40, 41, 42] });
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const short = tryCollate({ image: new Float32Array(3), label: 1 });
    expect(short).toBeInstanceOf(CollateError);
    expect(short).toMatchObject({ code: 'COLLATE_SHAPE', index: 42, field: 'image' });
    expect((short as Error).message).toMatch(/Sample 42, field "image".*\[4\].*3 elements/);
    expect(tryCollate({ image: new Uint8Array(4), label: 1 })).toMatchObject({
      code: 'COLLATE_MISMATCH',
      index: 42,
      field: 'image',
    });
    expect(tryCollate({ image: new Float32Array(4) })).toMatchObject({
      code: 'COLLATE_MISMATCH',
      field: 'label',
    });
    expect(tryCollate({ image: new Float32Array(4), label: 1.5 })).toMatchObject({
      code: 'COLLATE_LABEL',
      field: 'label',
    });
    expect(() =>
      collate(
        [
          { image: { data: new Float32Array(4), shape: [2, 2] } },
          { image: { data: new Float32Array(4), shape: [4, 1] } },
        ],
        { indices: [7, 8] },
      ),
    ).toThrow(/Sample 8, field "image": expected shape \[2, 2\].*\[4, 1\]/);
    expect(() => collate([{ name: 'x' } as never], { indices: [3] })).toThrow(
      /Sample 3, field "name"/,
    );
  });
});
