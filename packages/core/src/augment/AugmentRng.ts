import { philox4x32 } from '../util/counterRng.js';

const TWO_32 = 4294967296;
const TWO_NEG_32 = 2 ** -32;
/** Key tag of augmentation streams (bit 31 of key word 1; seeds below 2^53 never set it). */
const AUGMENT_TAG = 0x80000000;

/**
 * The random draws an augmentation may make. Every draw is taken from a
 * counter-based stream, so the same `(seed, epoch, index)` gives the same
 * draws on every machine and in every worker.
 */
export interface AugmentRandom {
  /** A uniform float in [0, 1) with 32 random bits. */
  next(): number;
  /** A uniform float in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** A uniform integer in [0, n). */
  int(n: number): number;
  /** A uniform uint32 (e.g. a key for a sub-stream). */
  uint32(): number;
  /** A standard normal value (Box–Muller on two uniform draws). */
  normal(): number;
}

/**
 * The per-sample stream of the augment stage: Philox4x32-10 with key
 * `(seed mod 2^32, ⌊seed / 2^32⌋ | 2^31)` and counter `(draw block, index,
 * epoch mod 2^32, ⌊epoch / 2^32⌋)`. The tag bit keeps it apart from the
 * shuffle's stream (same seed). Draw `k` of a sample is word `k mod 4` of block
 * `⌊k / 4⌋`: a pure function of `(seed, epoch, index, k)`, nothing is carried
 * from one sample to the next. One instance reuses one scratch block; call
 * {@link AugmentRng.reset} before each sample.
 *
 * @example
 * const rng = new AugmentRng().reset(7, 0, 42);
 * rng.next(); // the same number for (seed 7, epoch 0, index 42), everywhere
 */
export class AugmentRng implements AugmentRandom {
  private readonly words = new Uint32Array(4);
  private k0 = 0;
  private k1 = AUGMENT_TAG;
  private c1 = 0;
  private c2 = 0;
  private c3 = 0;
  private block = 0;
  private pos = 4;
  private spare = Number.NaN;

  /** Start the stream of sample `index` in `epoch` under `seed` (integers in [0, 2^53); index below 2^32). */
  reset(seed: number, epoch: number, index: number): this {
    return this.resetKey(
      seed >>> 0,
      (Math.floor(seed / TWO_32) | AUGMENT_TAG) >>> 0,
      index >>> 0,
      epoch >>> 0,
      Math.floor(epoch / TWO_32) >>> 0,
    );
  }

  private resetKey(k0: number, k1: number, c1: number, c2: number, c3: number): this {
    this.k0 = k0;
    this.k1 = k1;
    this.c1 = c1;
    this.c2 = c2;
    this.c3 = c3;
    this.block = 0;
    this.pos = 4;
    this.spare = Number.NaN;
    return this;
  }

  /** The next 32-bit unsigned integer of the stream. */
  uint32(): number {
    if (this.pos === 4) {
      philox4x32(this.block++, this.c1, this.c2, this.c3, this.k0, this.k1, this.words);
      this.pos = 0;
    }
    return this.words[this.pos++]!;
  }

  /** A uniform number in [0, 1). */
  next(): number {
    return this.uint32() * TWO_NEG_32;
  }

  /** A uniform number in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A standard normal number (mean 0, standard deviation 1). */
  normal(): number {
    const s = this.spare;
    if (!Number.isNaN(s)) {
      this.spare = Number.NaN;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - this.next()));
    const t = 2 * Math.PI * this.next();
    this.spare = r * Math.sin(t);
    return r * Math.cos(t);
  }
}
