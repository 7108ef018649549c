import { philox4x32 } from '../util/counterRng.js';
import { withDefault } from '../util/validate.js';
import type { AugmentRandom } from './AugmentRng.js';
import { type FloatArray, finite, optionsOf, probability, type Transform } from './Transform.js';

/** Options of {@link gaussianNoise}. */
export interface GaussianNoiseOptions {
  /**
   * Probability of adding noise.
   * @default 0.5
   */
  p?: number;
  /**
   * Standard deviation of the noise, ≥ 0.
   * @default 0.05
   */
  std?: number;
}

/** The draws of a noise step: the key of its per-value sub-stream. */
export interface NoiseDraw {
  /** First word of the sub-stream's key. */
  key0: number;
  /** Second word of the sub-stream's key. */
  key1: number;
}

const TWO_NEG_31 = 2 ** -31;
/** Key tag of noise sub-streams (bit 30 of key word 1; sample streams set bit 31, seeds neither). */
const SUB_TAG = 0x40000000;

/**
 * The per-value stream of a noise step: SFC32 (Doninger's Small Fast Chaotic
 * generator, 32-bit), its state set from one Philox4x32-10 block with key
 * `(key0, key1 mod 2^30 | 2^30)`, counter 0, then 12 outputs discarded. Philox
 * keys it from the sample's draws (so it stays a pure function of
 * `(seed, epoch, index)`); SFC32 makes the ~10⁵ values of a large image cheap.
 * One instance per transform; `reset` before each use.
 */
export class NoiseStream {
  private readonly words = new Uint32Array(4);
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  /** Start the stream of `draw`. */
  reset(draw: NoiseDraw): this {
    const w = philox4x32(
      0,
      0,
      0,
      0,
      draw.key0,
      ((draw.key1 & 0x3fffffff) | SUB_TAG) >>> 0,
      this.words,
    );
    this.a = w[0]! | 0;
    this.b = w[1]! | 0;
    this.c = w[2]! | 0;
    this.d = w[3]! | 0;
    for (let i = 0; i < 12; i++) this.uint32();
    return this;
  }

  /**
   * Add `std`-scaled normal values to every value of `x` ({@link addNoise}'s
   * scalar case, its hot loop): the same draws and arithmetic in the same
   * order, bitwise the same values, with the generator's state in locals.
   */
  addScaled(x: Float32Array, std: number): void {
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    const n = x.length;
    for (let i = 0; i < n; i += 2) {
      let u: number;
      let v: number;
      let q: number;
      do {
        let t = (((a + b) | 0) + d) | 0;
        d = (d + 1) | 0;
        a = b ^ (b >>> 9);
        b = (c + (c << 3)) | 0;
        c = (c << 21) | (c >>> 11);
        c = (c + t) | 0;
        u = (t >>> 0) * TWO_NEG_31 - 1;
        t = (((a + b) | 0) + d) | 0;
        d = (d + 1) | 0;
        a = b ^ (b >>> 9);
        b = (c + (c << 3)) | 0;
        c = (c << 21) | (c >>> 11);
        c = (c + t) | 0;
        v = (t >>> 0) * TWO_NEG_31 - 1;
        q = u * u + v * v;
      } while (q >= 1 || q === 0);
      const f = Math.sqrt((-2 * Math.log(q)) / q);
      x[i] = x[i]! + std * u * f;
      if (i + 1 < n) x[i + 1] = x[i + 1]! + std * v * f;
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  /** The next uint32. */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
}

/**
 * The draw of a noise step applied with probability `p`: the sub-stream key is
 * taken whether or not the step applies, so later steps see the same numbers.
 * Shared by {@link gaussianNoise} and `gaussianJitter`.
 */
export function drawNoise(rng: AugmentRandom, p: number): NoiseDraw | undefined {
  const go = rng.next() < p;
  const key0 = rng.uint32();
  const key1 = rng.uint32();
  return go ? { key0, key1 } : undefined;
}

/**
 * Add `N(0, std²)` noise to every value of `x` in place (`std` a number, or one
 * per position of the last axis), drawn from the {@link NoiseStream} of
 * `draw`: Marsaglia's polar method on consecutive pairs of uint32 `(j, k)`,
 * `u = j / 2^31 − 1`, `v = k / 2^31 − 1`, pairs with `q = u² + v²` outside
 * (0, 1) skipped; values `2i` and `2i + 1` get `u·f` and `v·f`, with
 * `f = √(−2 ln q / q)` (no trigonometry). Shared by {@link gaussianNoise} and
 * `gaussianJitter`.
 */
export function addNoise(
  x: Float32Array,
  draw: NoiseDraw,
  std: number | readonly number[],
  stream: NoiseStream,
): void {
  stream.reset(draw);
  if (typeof std === 'number') {
    stream.addScaled(x, std);
    return;
  }
  const per = typeof std === 'number' ? undefined : std;
  const s = typeof std === 'number' ? std : 0;
  const m = per?.length ?? 1;
  for (let i = 0; i < x.length; i += 2) {
    // Marsaglia's polar method: a point uniform in the unit disc (rejecting ~21 %)
    let u: number;
    let v: number;
    let q: number;
    do {
      u = stream.uint32() * TWO_NEG_31 - 1;
      v = stream.uint32() * TWO_NEG_31 - 1;
      q = u * u + v * v;
    } while (q >= 1 || q === 0);
    const f = Math.sqrt((-2 * Math.log(q)) / q);
    x[i] = x[i]! + (per ? per[i % m]! : s) * u * f;
    if (i + 1 < x.length) x[i + 1] = x[i + 1]! + (per ? per[(i + 1) % m]! : s) * v * f;
  }
}

/**
 * Add Gaussian noise `N(0, std²)` to every value with probability `p`. The
 * draw is the key of a sub-stream that gives the per-value noise (so the GPU
 * path consumes the same draws; its noise values differ, only its
 * distribution matches).
 * @example gaussianNoise({ std: 0.03, p: 0.5 })
 */
export function gaussianNoise(options?: GaussianNoiseOptions): Transform<NoiseDraw> {
  const o = optionsOf('gaussianNoise', options);
  const p = withDefault('gaussianNoise.p', o.p, 0.5, probability);
  const std = withDefault('gaussianNoise.std', o.std, 0.05, (n, v) => finite(n, v, 0));
  const sub = new NoiseStream();
  return {
    kind: 'gaussianNoise',
    options: { p, std },
    draw: (rng) => drawNoise(rng, p),
    shapeAfter: (shape) => shape,
    apply(input: FloatArray, d: NoiseDraw): FloatArray {
      addNoise(input.data, d, std, sub);
      return input;
    },
  };
}
