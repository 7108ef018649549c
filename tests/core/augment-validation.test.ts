import {
  AugmentRng,
  augmentFields,
  compose,
  cutout,
  DataLoader,
  flipH,
  fromArray,
  gamma,
  gaussianJitter,
  gaussianNoise,
  intensity,
  normalize,
  oneOf,
  randomResizedCrop,
  rotate,
  rotate90,
  runTransform,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('augmentation parameters are validated, naming the option and the value', () => {
  it.each([
    [() => flipH({ p: 1.5 }), RangeError, /flipH\.p must be in \[0, 1\], got 1\.5/],
    [
      () => flipH({ p: '0.5' as unknown as number }),
      TypeError,
      /flipH\.p must be a number, got "0\.5"/,
    ],
    [
      () => rotate90({ turns: [4 as 1] }),
      RangeError,
      /rotate90\.turns\[0\] must be 1, 2 or 3, got 4/,
    ],
    [() => rotate90({ turns: [] }), TypeError, /rotate90\.turns/],
    [() => rotate({ degrees: 270 }), RangeError, /rotate\.degrees .*≤ 180, got 270/],
    [() => rotate({ fill: Number.NaN }), RangeError, /rotate\.fill .*got NaN/],
    [
      () => randomResizedCrop({ size: 0 }),
      RangeError,
      /randomResizedCrop\.size must be a positive integer, got 0/,
    ],
    [
      () => randomResizedCrop({ size: 8, scale: [0.9, 0.1] }),
      RangeError,
      /randomResizedCrop\.scale must have min ≤ max, got \[0\.9, 0\.1\]/,
    ],
    [
      () => randomResizedCrop({ size: 8, ratio: [0, 1] }),
      RangeError,
      /randomResizedCrop\.ratio\[0\]/,
    ],
    [
      () => intensity({ scale: [1] as unknown as [number, number] }),
      TypeError,
      /intensity\.scale must be a \[min, max\] pair/,
    ],
    [() => gamma({ gamma: [0, 1] }), RangeError, /gamma\.gamma\[0\]/],
    [() => gaussianNoise({ std: -1 }), RangeError, /gaussianNoise\.std .*≥ 0, got -1/],
    [() => gaussianJitter({ std: [0.1, -2] }), RangeError, /gaussianJitter\.std\[1\] .*got -2/],
    [() => cutout({ size: 2.5 }), RangeError, /cutout\.size must be a positive integer, got 2\.5/],
    [() => cutout({ count: 0 }), RangeError, /cutout\.count must be a positive integer, got 0/],
    [() => normalize({ std: 0 }), RangeError, /normalize\.std .*got 0/],
    [() => compose([]), TypeError, /compose needs a non-empty array/],
    [() => compose([flipH(), 3 as never]), TypeError, /compose\[1\] must be a transform/],
    [() => oneOf([flipH()], { p: -0.1 }), RangeError, /oneOf\.p must be in \[0, 1\], got -0\.1/],
    [
      () => augmentFields({ image: 'flip' as never }),
      TypeError,
      /augmentFields: 'image' must be a transform/,
    ],
  ])('%#', (make, kind, message) => {
    expect(make).toThrow(kind);
    expect(make).toThrow(message);
  });

  it('shape problems surface when the transform meets the data', () => {
    const rng = new AugmentRng().reset(0, 0, 0);
    const vector = { data: new Float32Array(4), shape: [4] };
    expect(() => runTransform(flipH(), vector, rng)).toThrow(
      /flipH needs an image of shape \[H, W, C\] or \[H, W\], got \[4\]/,
    );
    const small = { data: new Float32Array(4), shape: [2, 2, 1] };
    expect(() => runTransform(cutout({ size: 3 }), small, rng)).toThrow(RangeError);
    const rgb = { data: new Float32Array(6), shape: [1, 2, 3] };
    expect(() => runTransform(normalize({ mean: [0, 0] }), rgb, rng)).toThrow(
      /normalize\.mean has 2 values but the input has 3 channels/,
    );
  });

  it('the DataLoader rejects an augment that is neither a function nor has apply', () => {
    const ds = fromArray([{ x: 1 }]);
    expect(() => new DataLoader(ds, { augment: 3 as never })).toThrow(TypeError);
    expect(() => new DataLoader(ds, { augment: {} as never })).toThrow(
      /augment must be a function/,
    );
  });
});
