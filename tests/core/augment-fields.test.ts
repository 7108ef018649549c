import {
  type AugmentContext,
  AugmentRng,
  augmentFields,
  flipH,
  gaussianJitter,
  rotate90,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const ctx = (index: number): AugmentContext => ({
  seed: 1,
  epoch: 0,
  index,
  rng: new AugmentRng().reset(1, 0, index),
});

describe('augmentFields applies transforms per field and leaves the rest alone', () => {
  it('transforms the named fields into new arrays; labels and the input stay as they were', () => {
    const sample = {
      image: Uint8Array.of(1, 2, 3, 4, 5, 6),
      imageShape: [2, 3, 1],
      tabular: Float32Array.of(1, 2),
      label: 2,
      id: 'a',
    };
    const aug = augmentFields<typeof sample>({
      image: rotate90({ p: 1, turns: [1] }),
      tabular: gaussianJitter({ std: 1 }),
    });
    const out = aug(sample, ctx(0)) as unknown as Record<string, unknown>;
    expect(out).not.toBe(sample);
    expect(out.image).toBeInstanceOf(Float32Array);
    expect(Array.from(out.image as Float32Array)).toEqual([3, 6, 2, 5, 1, 4]);
    expect(out.imageShape).toEqual([3, 2, 1]);
    expect(Array.from(out.tabular as Float32Array)).not.toEqual([1, 2]);
    expect(out.label).toBe(2);
    expect(out.id).toBe('a');
    expect(Array.from(sample.image)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sample.imageShape).toEqual([2, 3, 1]);
    expect(Array.from(sample.tabular)).toEqual([1, 2]);
  });

  it('gives a fresh array even when every step is skipped', () => {
    const sample = { image: { data: Float32Array.of(1, 2, 3, 4), shape: [2, 2] } };
    const out = augmentFields<typeof sample>({ image: flipH({ p: 0 }) })(sample, ctx(0));
    expect(out.image.data).not.toBe(sample.image.data);
    expect(Array.from(out.image.data)).toEqual([1, 2, 3, 4]);
    expect(out.image.shape).toEqual([2, 2]);
  });

  it('takes the shape of a flat field from options.shapes and works on tuples', () => {
    const aug = augmentFields<[Float32Array, number]>(
      { 0: flipH({ p: 1 }) },
      { shapes: { 0: [1, 3, 1] } },
    );
    const tuple: [Float32Array, number] = [Float32Array.of(1, 2, 3), 7];
    const out = aug(tuple, ctx(0));
    expect(Array.isArray(out)).toBe(true);
    expect(Array.from(out[0])).toEqual([3, 2, 1]);
    expect(out[1]).toBe(7);
    expect(() => aug([Float32Array.of(1, 2), 7], ctx(0))).toThrow(
      /field '0' has 2 values but shape \[1,3,1\]/,
    );
    expect(() => augmentFields({ image: flipH() }, { shapes: { image: [0, 2] } })).toThrow(
      RangeError,
    );
  });
});
