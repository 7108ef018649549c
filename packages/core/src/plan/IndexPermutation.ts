import { philox4x32 } from '../util/counterRng.js';
import { nonNegativeInt } from '../util/validate.js';
import { type EpochPlan, iteratePlan } from './EpochPlan.js';

const TWO_32 = 4294967296;
/** Feistel rounds (each rewrites one half). */
const ROUNDS = 8;
const TWO_27 = 134217728;
/** Philox output, reused by every call (nothing is allocated per index). */
const words = new Uint32Array(4);
/**
 * Halves of at most this many bits get their round outputs tabulated (two
 * tables of 4 × 2^bits words, at most 2 MiB together) once a permutation has
 * been asked for enough positions to pay for them.
 */
const TABLE_MAX_BITS = 16;

function checkSafe(name: string, value: number): number {
  nonNegativeInt(name, value);
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${name} must be below 2^53, got ${value}`);
  return value;
}

/**
 * A seeded bijection of `[0, length)`, computed index by index in O(1) time
 * and memory: the shuffled order of an epoch without an array. Position →
 * index is {@link IndexPermutation.indexAt}, index → position is
 * {@link IndexPermutation.positionOf}.
 *
 * Definition (stable from version 0.2 on; `shuffledOrder` and the
 * DataLoader's `shuffle: true` read it): let `b = max(2, bits(length − 1))`,
 * `hi = ⌊b/2⌋`, `lo = b − hi`. A value `x < 2^b` is split into `L = ⌊x / 2^lo⌋`
 * and `R = x mod 2^lo`. Round `r = 0..7` draws
 * `F = philox4x32(counter = (h + r·2^27, stream, epoch mod 2^32, ⌊epoch / 2^32⌋), key = (seed mod 2^32, ⌊seed / 2^32⌋))[0]`
 * with `h` the other half (`R` on even rounds, `L` on odd ones) and sets
 * `L ^= F mod 2^hi` (even) or `R ^= F mod 2^lo` (odd). The eight rounds
 * permute `[0, 2^b)`; cycle-walking (apply again while the result is
 * ≥ length) restricts them to `[0, length)`. `indexAt(p)` encrypts `p`,
 * `positionOf(i)` runs the rounds backwards. Integer arithmetic only: every
 * engine gives the same order, for any `length` up to 2^53.
 *
 * Cost: eight Philox blocks per position at first; once a permutation has
 * been asked for about as many positions as `2^lo + 2^hi` (a full epoch
 * asks `length`), it tabulates the round outputs of every half value
 * (4 · (2^lo + 2^hi) blocks, done once, same results) and each position
 * then costs eight table reads. Halves wider than 16 bits (lengths past
 * 2^32) are never tabulated.
 *
 * @example
 * const order = new IndexPermutation(1_000_000_000, 42, 0);
 * order.indexAt(0); // the first sample of epoch 0
 * order.positionOf(order.indexAt(7)); // 7
 */
export class IndexPermutation implements EpochPlan {
  /** Number of indices permuted. */
  readonly length: number;
  /** The seed (key of the round function). */
  readonly seed: number;
  /** The epoch (part of the counter: each epoch has an unrelated order). */
  readonly epoch: number;
  /** Stream number, for several independent permutations of one (seed, epoch). */
  readonly stream: number;
  private readonly hiBits: number;
  private readonly loScale: number;
  private readonly hiMask: number;
  private readonly loMask: number;
  private readonly k0: number;
  private readonly k1: number;
  private readonly e0: number;
  private readonly e1: number;
  /** 2^hiBits. */
  private readonly hiScale: number;
  /** Positions asked so far, until the tables exist. */
  private asked = 0;
  /** Round outputs F(r, lo) of the even rounds r = 0, 2, 4, 6: `[r/2 · 2^lo + lo]`. */
  private evenRounds: Uint32Array | undefined;
  /** Round outputs F(r, hi) of the odd rounds r = 1, 3, 5, 7: `[(r−1)/2 · 2^hi + hi]`. */
  private oddRounds: Uint32Array | undefined;

  /**
   * @param length indices are `[0, length)`, any length up to 2^53
   * @param seed integer in [0, 2^53)
   * @param epoch integer in [0, 2^53)
   * @param stream integer in [0, 2^32) (default 0); `shardPlan` uses one per window
   */
  constructor(length: number, seed: number, epoch: number, stream = 0) {
    this.length = checkSafe('length', length);
    this.seed = checkSafe('seed', seed);
    this.epoch = checkSafe('epoch', epoch);
    nonNegativeInt('stream', stream);
    if (stream >= TWO_32) throw new RangeError(`stream must be below 2^32, got ${stream}`);
    this.stream = stream;
    let bits = 2;
    while (bits < 53 && 2 ** bits < length) bits++;
    this.hiBits = bits >>> 1;
    const loBits = bits - this.hiBits;
    this.loScale = 2 ** loBits;
    this.hiScale = 2 ** this.hiBits;
    this.hiMask = this.hiScale - 1;
    this.loMask = this.loScale - 1;
    this.k0 = seed >>> 0;
    this.k1 = Math.floor(seed / TWO_32) >>> 0;
    this.e0 = epoch >>> 0;
    this.e1 = Math.floor(epoch / TWO_32) >>> 0;
  }

  /** The index read at `position` (in [0, length)). */
  indexAt(position: number): number {
    if (this.evenRounds === undefined) this.countAsked();
    let x = position;
    do x = this.encrypt(x);
    while (x >= this.length);
    return x;
  }

  /** The position at which `index` (in [0, length)) is read. */
  positionOf(index: number): number {
    if (this.evenRounds === undefined) this.countAsked();
    let x = index;
    do x = this.decrypt(x);
    while (x >= this.length);
    return x;
  }

  /** The indices in order (materialises nothing). */
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }

  /** Tabulate the rounds once the positions asked have cost as many blocks as the tables will. */
  private countAsked(): void {
    this.asked++;
    if (this.loScale > 2 ** TABLE_MAX_BITS || 2 * this.asked < this.loScale + this.hiScale) return;
    const even = new Uint32Array(4 * this.loScale);
    const odd = new Uint32Array(4 * this.hiScale);
    for (let k = 0; k < 4; k++) {
      for (let lo = 0; lo < this.loScale; lo++) even[k * this.loScale + lo] = this.round(2 * k, lo);
      for (let hi = 0; hi < this.hiScale; hi++)
        odd[k * this.hiScale + hi] = this.round(2 * k + 1, hi);
    }
    this.evenRounds = even;
    this.oddRounds = odd;
  }

  private round(r: number, half: number): number {
    philox4x32(half + r * TWO_27, this.stream, this.e0, this.e1, this.k0, this.k1, words);
    return words[0]!;
  }

  private encrypt(x: number): number {
    let hi = Math.floor(x / this.loScale);
    let lo = x - hi * this.loScale;
    const even = this.evenRounds;
    const odd = this.oddRounds;
    if (even !== undefined && odd !== undefined) {
      for (let k = 0; k < 4; k++) {
        hi = (hi ^ even[k * this.loScale + lo]!) & this.hiMask;
        lo = (lo ^ odd[k * this.hiScale + hi]!) & this.loMask;
      }
      return hi * this.loScale + lo;
    }
    for (let r = 0; r < ROUNDS; r += 2) {
      hi = (hi ^ this.round(r, lo)) & this.hiMask;
      lo = (lo ^ this.round(r + 1, hi)) & this.loMask;
    }
    return hi * this.loScale + lo;
  }

  private decrypt(x: number): number {
    let hi = Math.floor(x / this.loScale);
    let lo = x - hi * this.loScale;
    const even = this.evenRounds;
    const odd = this.oddRounds;
    if (even !== undefined && odd !== undefined) {
      for (let k = 3; k >= 0; k--) {
        lo = (lo ^ odd[k * this.hiScale + hi]!) & this.loMask;
        hi = (hi ^ even[k * this.loScale + lo]!) & this.hiMask;
      }
      return hi * this.loScale + lo;
    }
    for (let r = ROUNDS - 2; r >= 0; r -= 2) {
      lo = (lo ^ this.round(r + 1, hi)) & this.loMask;
      hi = (hi ^ this.round(r, lo)) & this.hiMask;
    }
    return hi * this.loScale + lo;
  }
}
