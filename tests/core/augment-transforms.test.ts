import {
  type AugmentRandom,
  compose,
  cutout,
  type FloatArray,
  flipH,
  flipV,
  gamma,
  gaussianJitter,
  gaussianNoise,
  intensity,
  normalize,
  oneOf,
  philox4x32,
  randomResizedCrop,
  rotate,
  rotate90,
  runTransform,
  type Transform,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** An rng that returns scripted uniforms (and uint32 keys), so every draw is known. */
function scripted(uniforms: number[], keys: number[] = []): AugmentRandom {
  const u = [...uniforms];
  const k = [...keys];
  const next = () => {
    if (u.length === 0) throw new Error('script ran out of uniforms');
    return u.shift()!;
  };
  return {
    next,
    uniform: (lo, hi) => lo + (hi - lo) * next(),
    int: (n) => Math.floor(next() * n),
    uint32: () => k.shift() ?? 0,
    normal: () => next(),
  };
}

const img = (shape: number[], values: number[]): FloatArray => ({
  data: Float32Array.from(values),
  shape,
});

function run(t: Transform, input: FloatArray, uniforms: number[], keys?: number[]): FloatArray {
  return runTransform(
    t,
    { data: input.data.slice(), shape: input.shape },
    scripted(uniforms, keys),
  );
}

// [[1, 2, 3], [4, 5, 6]] as [H=2, W=3, C=1]
const g23 = img([2, 3, 1], [1, 2, 3, 4, 5, 6]);
// one row of two RGB pixels [H=1, W=2, C=3]
const rgb12 = img([1, 2, 3], [1, 2, 3, 4, 5, 6]);
// [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
const g33 = img([3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]);

describe('built-in transforms against hand-computed results', () => {
  it('flipH mirrors columns, keeping channels together', () => {
    expect(Array.from(run(flipH(), g23, [0.1]).data)).toEqual([3, 2, 1, 6, 5, 4]);
    expect(Array.from(run(flipH(), rgb12, [0.1]).data)).toEqual([4, 5, 6, 1, 2, 3]);
    // the draw 0.7 ≥ p = 0.5: not flipped
    expect(Array.from(run(flipH(), g23, [0.7]).data)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('flipV mirrors rows', () => {
    expect(Array.from(run(flipV({ p: 1 }), g23, [0.99]).data)).toEqual([4, 5, 6, 1, 2, 3]);
    expect(Array.from(run(flipV({ p: 0 }), g23, [0]).data)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('rotate90 turns counter-clockwise like numpy rot90, swapping H and W for odd turns', () => {
    const k1 = run(rotate90(), g23, [0, 0]); // turns[floor(0 * 3)] = 1
    expect(k1.shape).toEqual([3, 2, 1]);
    expect(Array.from(k1.data)).toEqual([3, 6, 2, 5, 1, 4]);
    const k2 = run(rotate90(), g23, [0, 0.4]); // turns[1] = 2
    expect(k2.shape).toEqual([2, 3, 1]);
    expect(Array.from(k2.data)).toEqual([6, 5, 4, 3, 2, 1]);
    const k3 = run(rotate90(), g23, [0, 0.9]); // turns[2] = 3
    expect(Array.from(k3.data)).toEqual([4, 1, 5, 2, 6, 3]);
    expect(Array.from(run(rotate90({ turns: [2] }), rgb12, [0, 0]).data)).toEqual([
      4, 5, 6, 1, 2, 3,
    ]);
  });

  it('rotate by 90° equals rotate90, and 45° samples bilinearly with fill outside', () => {
    // degrees 180: angle = −π + 2π·0.75 = π/2
    const r = run(rotate({ p: 1, degrees: 180 }), g33, [0, 0.75]);
    const expected = [3, 6, 9, 2, 5, 8, 1, 4, 7];
    for (const [i, v] of r.data.entries()) expect(v).toBeCloseTo(expected[i]!, 5);
    // 45°: corner (0, 0) reads at (1, 1 − √2): (1 − fy)·fill + fy·input(0, 1), fy = 2 − √2
    const q = run(rotate({ p: 1, degrees: 90, fill: 0 }), g33, [0, 0.75]);
    expect(q.data[4]).toBeCloseTo(5, 5); // the centre stays
    expect(q.data[0]).toBeCloseTo((2 - Math.SQRT2) * 2, 5);
    const f = run(rotate({ p: 1, degrees: 90, fill: 10 }), g33, [0, 0.75]);
    expect(f.data[0]).toBeCloseTo((Math.SQRT2 - 1) * 10 + (2 - Math.SQRT2) * 2, 5);
  });

  it('randomResizedCrop crops the drawn box and resizes it corner-aligned', () => {
    const g44 = img(
      [4, 4, 1],
      Array.from({ length: 16 }, (_, i) => i),
    );
    // area 4·(1/4) → 2×2 box; x = floor(0.5·3) = 1, y = floor(0·3) = 0
    const t = (size: number, p = 1) =>
      randomResizedCrop({ size, scale: [0.25, 0.25], ratio: [1, 1], p });
    expect(Array.from(run(t(2), g44, [0, 0, 0, 0.5, 0]).data)).toEqual([1, 2, 5, 6]);
    // the same box upsampled to 3×3: input is 4y + x, linear, so bilinear is exact
    expect(Array.from(run(t(3), g44, [0, 0, 0, 0.5, 0]).data)).toEqual([
      1, 1.5, 2, 3, 3.5, 4, 5, 5.5, 6,
    ]);
    // not drawn (0.9 ≥ p): the whole image resized to 2×2 → its corners
    const whole = run(t(2, 0.5), g44, [0.9, 0, 0, 0.5, 0]);
    expect(whole.shape).toEqual([2, 2, 1]);
    expect(Array.from(whole.data)).toEqual([0, 3, 12, 15]);
  });

  it('intensity scales then shifts', () => {
    const t = intensity({ p: 1, scale: [0, 4], shift: [-1, 1] });
    // a = 0 + 4·0.5 = 2, b = −1 + 2·0.75 = 0.5
    expect(Array.from(run(t, img([3], [1, 2, 3]), [0, 0.5, 0.75]).data)).toEqual([2.5, 4.5, 6.5]);
  });

  it('gamma raises non-negative values, zeroes negative ones', () => {
    const t = gamma({ p: 1, gamma: [1, 3] }); // γ = 1 + 2·0.5 = 2
    expect(Array.from(run(t, img([3], [0.5, -1, 3]), [0, 0.5]).data)).toEqual([0.25, 0, 9]);
  });

  it('gaussianNoise adds polar-method normals from the SFC32 stream keyed by its draws', () => {
    const x = img([2, 2, 1], [1, 2, 3, 4]);
    const out = run(gaussianNoise({ p: 1, std: 0.5 }), x, [0], [11, 22]);
    // the documented stream: SFC32 seeded from Philox block 0 under key (11, 22 | 2^30), 12 discarded
    const w = philox4x32(0, 0, 0, 0, 11, (22 & 0x3fffffff) | 0x40000000, new Uint32Array(4));
    let [a, b, c, d] = [w[0]! | 0, w[1]! | 0, w[2]! | 0, w[3]! | 0];
    const next = () => {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = ((c << 21) | (c >>> 11)) + t;
      c |= 0;
      return t >>> 0;
    };
    for (let i = 0; i < 12; i++) next();
    const expected: number[] = [];
    for (let i = 0; i < 4; i += 2) {
      let u: number;
      let v: number;
      let q: number;
      do {
        u = next() / 2 ** 31 - 1;
        v = next() / 2 ** 31 - 1;
        q = u * u + v * v;
      } while (q >= 1 || q === 0);
      const f = Math.sqrt((-2 * Math.log(q)) / q);
      expected.push(x.data[i]! + 0.5 * u * f, x.data[i + 1]! + 0.5 * v * f);
    }
    expect(Array.from(out.data)).toEqual(Array.from(Float32Array.from(expected)));
    expect(Array.from(out.data)).not.toEqual([1, 2, 3, 4]);
    expect(Array.from(run(gaussianNoise({ p: 1, std: 0 }), x, [0], [1, 2]).data)).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it('gaussianNoise has the stated mean and standard deviation', () => {
    const n = 20000;
    const out = run(gaussianNoise({ p: 1, std: 0.2 }), img([n], new Array(n).fill(0)), [0], [5, 6]);
    let s = 0;
    let s2 = 0;
    for (const v of out.data) {
      s += v;
      s2 += v * v;
    }
    expect(Math.abs(s / n)).toBeLessThan(0.01);
    expect(Math.sqrt(s2 / n)).toBeCloseTo(0.2, 2);
  });

  it('gaussianJitter with a per-feature std leaves std-0 features untouched', () => {
    const v = img([3], [10, 20, 30]);
    const out = run(gaussianJitter({ std: [0, 1, 0] }), v, [0], [3, 4]);
    expect(out.data[0]).toBe(10);
    expect(out.data[2]).toBe(30);
    expect(out.data[1]).not.toBe(20);
  });

  it('cutout fills a patch at the drawn corner', () => {
    // y = floor(0.5·2) = 1, x = floor(0·2) = 0
    expect(Array.from(run(cutout({ p: 1, size: 2 }), g33, [0, 0.5, 0]).data)).toEqual([
      1, 2, 3, 0, 0, 6, 0, 0, 9,
    ]);
    const two = run(cutout({ p: 1, size: [1, 3], count: 2, fill: -1 }), g33, [0, 0, 0, 0.9, 0]);
    expect(Array.from(two.data)).toEqual([-1, -1, -1, 4, 5, 6, -1, -1, -1]);
  });

  it('normalize subtracts the mean and divides by the std per channel', () => {
    const out = run(normalize({ mean: [1, 2, 3], std: [1, 2, 4] }), rgb12, []);
    expect(Array.from(out.data)).toEqual([0, 0, 0, 3, 1.5, 0.75]);
    expect(Array.from(run(normalize({ mean: 1, std: 2 }), g23, []).data)).toEqual([
      0, 0.5, 1, 1.5, 2, 2.5,
    ]);
  });

  it('compose runs steps in order, each with its own draw; oneOf picks one', () => {
    const t = compose([flipH({ p: 1 }), intensity({ p: 1, scale: [2, 2], shift: [0, 0] })]);
    expect(Array.from(run(t, g23, [0, 0, 0, 0]).data)).toEqual([6, 4, 2, 12, 10, 8]);
    // a skipped step still takes its draws: flipH skipped (0.9), intensity applied
    expect(
      Array.from(
        run(
          compose([flipH(), intensity({ p: 1, scale: [2, 2], shift: [0, 0] })]),
          g23,
          [0.9, 0, 0, 0],
        ).data,
      ),
    ).toEqual([2, 4, 6, 8, 10, 12]);
    const o = oneOf([flipH({ p: 1 }), flipV({ p: 1 })]);
    expect(Array.from(run(o, g23, [0, 0.6, 0]).data)).toEqual([4, 5, 6, 1, 2, 3]);
    expect(Array.from(run(o, g23, [0, 0.1, 0]).data)).toEqual([3, 2, 1, 6, 5, 4]);
    expect(Array.from(run(oneOf([flipH({ p: 1 })], { p: 0 }), g23, [0, 0]).data)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
  });

  it('compose tracks the shape through steps that change it', () => {
    const t = compose([
      rotate90({ p: 1, turns: [1] }),
      cutout({ p: 1, size: [3, 1] }), // fits [3, 2] after the turn, not [2, 3]
    ]);
    const out = run(t, g23, [0, 0, 0, 0, 0.9]);
    expect(out.shape).toEqual([3, 2, 1]);
    expect(Array.from(out.data)).toEqual([3, 0, 2, 0, 1, 0]);
  });
});
