import {
  type AugmentContext,
  AugmentRng,
  augmentFields,
  type FloatArray,
  flipH,
  flipV,
  rotate90,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const img = (shape: number[], values: number[]): FloatArray => ({
  data: Float32Array.from(values),
  shape,
});

describe('geometric steps work in place on the working copy', () => {
  it('flips odd and even sizes in place, channels together', () => {
    const a = img([3, 3, 1], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const h = flipH().apply(a, true);
    expect(h.data).toBe(a.data);
    expect(Array.from(h.data)).toEqual([3, 2, 1, 6, 5, 4, 9, 8, 7]);
    const v = flipV().apply(img([3, 2, 1], [1, 2, 3, 4, 5, 6]), true);
    expect(Array.from(v.data)).toEqual([5, 6, 3, 4, 1, 2]);
    const rgb = flipV().apply(img([2, 1, 3], [1, 2, 3, 4, 5, 6]), true);
    expect(Array.from(rgb.data)).toEqual([4, 5, 6, 1, 2, 3]);
  });

  it('turns square images in place like numpy rot90 (odd and even sides, RGB)', () => {
    // [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    const g33 = () => img([3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const a = g33();
    const k1 = rotate90().apply(a, 1);
    expect(k1.data).toBe(a.data);
    expect(k1.shape).toEqual([3, 3]);
    expect(Array.from(k1.data)).toEqual([3, 6, 9, 2, 5, 8, 1, 4, 7]);
    expect(Array.from(rotate90().apply(g33(), 2).data)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(Array.from(rotate90().apply(g33(), 3).data)).toEqual([7, 4, 1, 8, 5, 2, 9, 6, 3]);
    // 2×2 RGB: pixels A B / C D (channels a, a+1, a+2)
    const rgb = () => img([2, 2, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // one turn: B D / A C
    expect(Array.from(rotate90().apply(rgb(), 1).data)).toEqual([
      4, 5, 6, 10, 11, 12, 1, 2, 3, 7, 8, 9,
    ]);
    // three turns: C A / D B
    expect(Array.from(rotate90().apply(rgb(), 3).data)).toEqual([
      7, 8, 9, 1, 2, 3, 10, 11, 12, 4, 5, 6,
    ]);
  });
});

describe('augmentFields and ctx.writable', () => {
  const recipe = augmentFields<{ image: Float32Array; imageShape: number[] }>({
    image: flipH({ p: 1 }),
  });
  const ctx = (writable?: boolean): AugmentContext => ({
    seed: 1,
    epoch: 0,
    index: 0,
    rng: new AugmentRng().reset(1, 0, 0),
    ...(writable === undefined ? {} : { writable }),
  });
  const sample = () => ({ image: Float32Array.from([1, 2, 3, 4]), imageShape: [2, 2, 1] });

  it('copies the cached sample unless the context says it is writable', () => {
    const cached = sample();
    const out = recipe(cached, ctx());
    expect(Array.from(cached.image)).toEqual([1, 2, 3, 4]);
    expect(Array.from(out.image)).toEqual([2, 1, 4, 3]);
    expect(recipe(cached, ctx(false)).image).not.toBe(cached.image);
    expect(Array.from(cached.image)).toEqual([1, 2, 3, 4]);
  });

  it('works in place on a writable sample, but still copies a view into a larger buffer', () => {
    const own = sample();
    const out = recipe(own, ctx(true));
    expect(out.image).toBe(own.image);
    expect(Array.from(own.image)).toEqual([2, 1, 4, 3]);
    const buffer = Float32Array.from([9, 1, 2, 3, 4]);
    const view = { image: buffer.subarray(1), imageShape: [2, 2, 1] };
    expect(Array.from(recipe(view, ctx(true)).image)).toEqual([2, 1, 4, 3]);
    expect(Array.from(buffer)).toEqual([9, 1, 2, 3, 4]);
  });
});

describe('augmentFields never writes shared memory in place', () => {
  it('copies a SharedArrayBuffer-backed field even when writable', () => {
    const recipe = augmentFields<{ image: Float32Array; imageShape: number[] }>({
      image: flipH({ p: 1 }),
    });
    const shared = new Float32Array(new SharedArrayBuffer(16));
    shared.set([1, 2, 3, 4]);
    const out = recipe(
      { image: shared, imageShape: [2, 2, 1] },
      { seed: 1, epoch: 0, index: 0, rng: new AugmentRng().reset(1, 0, 0), writable: true },
    );
    expect(Array.from(out.image)).toEqual([2, 1, 4, 3]);
    expect(Array.from(shared)).toEqual([1, 2, 3, 4]);
  });
});
