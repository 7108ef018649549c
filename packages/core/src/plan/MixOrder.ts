import { philox4x32 } from '../util/counterRng.js';
import { nonNegativeInt, oneOfValues, showValue } from '../util/validate.js';
import { IndexPermutation } from './IndexPermutation.js';

/** What a mix does when a source has given all its samples. */
export type OnExhausted = 'stop' | 'repeat' | 'renormalize';

/** Options of `mixDatasets` (and {@link MixOrder}). */
export interface MixOptions {
  /**
   * One non-negative weight per source: the share of the mix's draws that
   * source gets, after dividing by their sum. A source of weight 0 is never read.
   */
  weights: readonly number[];
  /**
   * Seed of the draws and of each source's order; the same seed, weights
   * and lengths always give the same mix.
   * @default 0
   */
  seed?: number;
  /**
   * When a source has given every sample: `'stop'` ends the mix (its length
   * is where the first weighted source runs out); `'repeat'` starts that
   * source again in a fresh order, so every draw keeps the weights (set the
   * mix's `length`); `'renormalize'` goes on with the other sources, their
   * weights scaled up to sum to 1, until every sample of every weighted
   * source was drawn once.
   * @default 'renormalize'
   */
  onExhausted?: OnExhausted;
  /**
   * Draws in the mix (its `length`), at most the natural length of `'stop'`
   * and `'renormalize'`.
   * @default `'stop'` / `'renormalize'`: where the sources run out; `'repeat'`: the sources' lengths summed
   */
  length?: number;
}

const TWO_32 = 4294967296;
/**
 * Fourth counter word of the draws' jitter: 'mix\0' + the phase. `IndexPermutation` puts its
 * epoch's high word there (below 2^21), so the two never share a Philox block.
 */
const MIX_WORD = 0x6d697800;
/** A share below this counts as this (its draws lie past 2^53 positions): every time stays finite. */
const MIN_SHARE = 2 ** -900;
/** Counts from here on are not refined: no mix reaches them. */
const MAX_COUNT = 2 ** 53;

/**
 * One two-way split of a phase's sources: side 0 (the heavier subtree) and side 1 share the
 * split's positions. Draw `i` of side `s` comes at time `(i + V) / share_s`, `V` its own seeded
 * jitter in [0, 1); the positions are the draws in time order (side 0 first on a tie). Before any
 * time `t` each side has drawn `t × share` less than 1 off, so among the first `k` positions each
 * side has `k × share` draws less than 1 off (the two errors, weighted by the shares, subtract).
 */
class Split {
  /** Whether the position last given to {@link split} is a side-0 draw. */
  hit = false;
  private readonly share: Float64Array;
  private readonly scale: Float64Array;
  /** Two Philox blocks per side (block `q` in slot `q mod 2`), and which block each slot holds. */
  private readonly words = new Uint32Array(16);
  private readonly views: Uint32Array[];
  private readonly held = new Float64Array([-1, -1, -1, -1]);

  /**
   * @param child0 the heavier subtree (a split, or a source's number)
   * @param child1 the lighter one
   * @param w0 weight of `child0`
   * @param w1 weight of `child1`
   * @param c2 third counter word of the jitter (side 1 adds 1)
   * @param c3 fourth counter word
   * @param k0 the seed's low word
   * @param k1 its high word
   */
  constructor(
    readonly child0: Split | number,
    readonly child1: Split | number,
    w0: number,
    w1: number,
    private readonly c2: number,
    private readonly c3: number,
    private readonly k0: number,
    private readonly k1: number,
  ) {
    const s0 = Math.max(MIN_SHARE, w0 / (w0 + w1));
    const s1 = Math.max(MIN_SHARE, w1 / (w0 + w1));
    this.share = Float64Array.of(s0, s1);
    this.scale = Float64Array.of(1 / s0, 1 / s1);
    this.views = [0, 4, 8, 12].map((at) => this.words.subarray(at, at + 4));
  }

  /** Time of side `s`'s draw `i`. */
  private time(s: number, i: number): number {
    const q = Math.floor(i / 4);
    const slot = s * 2 + (q % 2);
    if (this.held[slot] !== q) {
      const { c2, c3, k0, k1 } = this;
      philox4x32(q % TWO_32, Math.floor(q / TWO_32), c2 + s, c3, k0, k1, this.views[slot]!);
      this.held[slot] = q;
    }
    return (i + this.words[slot * 4 + i - q * 4]! / TWO_32) * this.scale[s]!;
  }

  /** Whether side `s`'s draw `i` comes before time `t` (or at it, when `orAt`). */
  private before(s: number, i: number, t: number, orAt: boolean): boolean {
    const u = this.time(s, i);
    return orAt ? u <= t : u < t;
  }

  /** Draws of side `s` before time `t` (or at it, when `orAt`): ⌊t × share⌋, or one more. */
  private count(s: number, t: number, orAt: boolean): number {
    let c = Math.floor(t * this.share[s]!);
    if (!(c < MAX_COUNT)) return c;
    while (c > 0 && !this.before(s, c - 1, t, orAt)) c--;
    while (this.before(s, c, t, orAt)) c++;
    return c;
  }

  /** Position of side `s`'s draw `i` among the split's positions. */
  pos(s: number, i: number): number {
    return i + this.count(1 - s, this.time(s, i), s === 1);
  }

  /** Side-0 draws among the first `k` positions; {@link hit} tells whether position `k` is one. */
  split(k: number): number {
    let i = Math.floor(k * this.share[0]!);
    let p = this.pos(0, i);
    if (p >= k) {
      while (i > 0) {
        const q = this.pos(0, i - 1);
        if (q < k) break;
        i--;
        p = q;
      }
    } else {
      do p = this.pos(0, ++i);
      while (p < k);
    }
    this.hit = p === k;
    return i;
  }
}

/** Position, among `ref`'s positions, of source `j`'s draw `d`; -1 when `j` is not under `ref`. */
function positionOf(ref: Split | number, j: number, d: number): number {
  if (typeof ref === 'number') return ref === j ? d : -1;
  const in0 = positionOf(ref.child0, j, d);
  if (in0 >= 0) return ref.pos(0, in0);
  const in1 = positionOf(ref.child1, j, d);
  return in1 >= 0 ? ref.pos(1, in1) : -1;
}

/** Add to `counts` each source's draws among `ref`'s first `k` positions. */
function countDraws(ref: Split | number, k: number, counts: Float64Array): void {
  if (typeof ref === 'number') {
    counts[ref] = counts[ref]! + k;
    return;
  }
  const i = ref.split(k);
  countDraws(ref.child0, i, counts);
  countDraws(ref.child1, k - i, counts);
}

/** A stretch of the mix with one set of sources: from `start` on, source `j` draws from `base[j]` on. */
interface Phase {
  start: number;
  base: Float64Array;
  /** The top split of the phase's tree, or its one source. */
  root: Split | number;
}

/** Check the weights against `count` sources: TypeError / RangeError naming the bad value. */
function checkWeights(weights: unknown, count: number): Float64Array {
  if (!Array.isArray(weights)) {
    throw new TypeError(`weights must be an array of numbers, got ${showValue(weights)}`);
  }
  if (weights.length !== count) {
    throw new RangeError(
      `weights has ${weights.length} entries for ${count} sources: give one weight per source`,
    );
  }
  let sum = 0;
  weights.forEach((w, j) => {
    if (typeof w !== 'number') {
      throw new TypeError(`weights[${j}] must be a number, got ${showValue(w)}`);
    }
    if (!(Number.isFinite(w) && w >= 0)) {
      throw new RangeError(`weights[${j}] must be a finite number ≥ 0, got ${showValue(w)}`);
    }
    sum += w;
  });
  if (!(sum > 0)) {
    throw new RangeError(`weights must not all be zero, got [${weights.join(', ')}]`);
  }
  return Float64Array.from(weights, (w) => w / sum);
}

/**
 * The order of a weighted mix of sources as a function: mix position →
 * (source, that source's index). A phase's sources are the leaves of a binary
 * tree as shallow as can be (depth ⌈log2 sources⌉); each split interleaves
 * its two sides by jittered times: draw `i` of a side of share `a` comes at
 * `(i + V) / a`, `V` uniform in [0, 1) from Philox under the seed, and the
 * split's positions are its draws in time order. After any `k` positions a
 * side has `k × a` draws within less than 1, so a source has `k × weight`
 * within less than the depth (under 2 for up to 4 sources) in every run:
 * no rounding is carried along. The order is still a seeded shuffle (a draw
 * lands anywhere in its window of `1 / a` positions). The k-th draw of source
 * `j` in mix order reads position `k mod length` of
 * `IndexPermutation(length_j, seed, ⌊k / length_j⌋, j + 1)`. A source that
 * runs out ends a phase, after which the weights follow `onExhausted`.
 * O(sources²) memory; a position costs O(depth) (about three Philox blocks
 * per split when jumping, fewer in order), allocating nothing. Internal to
 * `mixDatasets`.
 */
export class MixOrder {
  /** Positions of the mix. */
  readonly length: number;
  /** The seed. */
  readonly seed: number;
  /** What happens when a source runs out. */
  readonly onExhausted: OnExhausted;
  /** Draw number (in its source) of the position last located. */
  draw = 0;
  private readonly lengths: readonly number[];
  private readonly phases: Phase[] = [];
  private readonly orders: (IndexPermutation | undefined)[];

  /**
   * @param lengths each source's length
   * @param options weights, seed, onExhausted, length
   */
  constructor(lengths: readonly number[], options: MixOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object with weights, got ${showValue(options)}`);
    }
    this.lengths = lengths;
    const weights = checkWeights(options.weights, lengths.length);
    this.seed = nonNegativeInt('seed', options.seed ?? 0);
    if (!Number.isSafeInteger(this.seed)) {
      throw new RangeError(`seed must be below 2^53, got ${this.seed}`);
    }
    this.onExhausted = oneOfValues('onExhausted', options.onExhausted ?? 'renormalize', [
      'stop',
      'repeat',
      'renormalize',
    ] as const);
    this.orders = lengths.map(() => undefined);
    const natural = this.plan(weights);
    if (options.length !== undefined) nonNegativeInt('length', options.length);
    if (this.onExhausted === 'repeat') {
      this.length = options.length ?? lengths.reduce((a, b) => a + b, 0);
    } else this.length = Math.min(options.length ?? natural, natural);
  }

  /** Lay out the phases; returns the natural length (Infinity for 'repeat'). */
  private plan(weights: Float64Array): number {
    const m = this.lengths.length;
    const left = Float64Array.from(this.lengths);
    const base = new Float64Array(m);
    const used = new Float64Array(m);
    let start = 0;
    for (let j = 0; j < m; j++) {
      if (weights[j]! > 0 && left[j] === 0 && this.onExhausted !== 'renormalize') {
        if (this.onExhausted === 'stop') return 0;
        throw new RangeError(
          `source ${j} has no samples to repeat, but weights[${j}] is ${weights[j]}`,
        );
      }
    }
    for (let phase = 0; ; phase++) {
      const active: number[] = [];
      for (let j = 0; j < m; j++) if (weights[j]! > 0 && left[j]! > 0) active.push(j);
      if (active.length === 0) return start;
      const root = this.tree(active, weights, phase);
      this.phases.push({ start, base: base.slice(), root });
      if (this.onExhausted === 'repeat') return Infinity;
      // the phase ends right after the first of its sources gives its last sample
      let end = Infinity;
      for (const j of active) end = Math.min(end, positionOf(root, j, left[j]! - 1) + 1);
      used.fill(0);
      countDraws(root, end, used);
      for (const j of active) {
        left[j] = left[j]! - used[j]!;
        base[j] = base[j]! + used[j]!;
      }
      start += end;
      if (this.onExhausted === 'stop') return start;
    }
  }

  /**
   * The phase's tree, as shallow as can be (depth ⌈log2 sources⌉): the two subtrees of fewest
   * sources, of those the lightest, are joined first (a tie keeps the sources' order).
   */
  private tree(active: number[], weights: Float64Array, phase: number): Split | number {
    const seed0 = this.seed >>> 0;
    const seed1 = Math.floor(this.seed / TWO_32) >>> 0;
    const nodes = active.map((j): { w: number; n: number; ref: Split | number } => ({
      w: weights[j]!,
      n: 1,
      ref: j,
    }));
    for (let id = 0; nodes.length > 1; id++) {
      nodes.sort((a, b) => b.n - a.n || b.w - a.w);
      const x = nodes.pop()!;
      const y = nodes.pop()!;
      const [a, b] = x.w > y.w ? [x, y] : [y, x];
      const split = new Split(a.ref, b.ref, a.w, b.w, 2 * id, MIX_WORD + phase, seed0, seed1);
      nodes.push({ w: a.w + b.w, n: a.n + b.n, ref: split });
    }
    return nodes[0]!.ref;
  }

  /** The source read at mix position `p` (in [0, length)); its draw number is left in {@link draw}. */
  locate(p: number): number {
    if (!(p >= 0 && p < this.length)) {
      throw new RangeError(`mix position ${p} is out of range [0, ${this.length})`);
    }
    const phases = this.phases;
    let t = phases.length - 1;
    while (t > 0 && phases[t]!.start > p) t--;
    const ph = phases[t]!;
    let k = p - ph.start;
    let ref = ph.root;
    while (typeof ref !== 'number') {
      const i = ref.split(k);
      if (ref.hit) {
        k = i;
        ref = ref.child0;
      } else {
        k -= i;
        ref = ref.child1;
      }
    }
    this.draw = ph.base[ref]! + k;
    return ref;
  }

  /** The index of source `j` read by its draw number `k`. */
  sourceIndex(j: number, k: number): number {
    const n = this.lengths[j]!;
    const pass = Math.floor(k / n);
    let order = this.orders[j];
    if (order?.epoch !== pass) {
      order = new IndexPermutation(n, this.seed, pass, j + 1);
      this.orders[j] = order;
    }
    return order.indexAt(k - pass * n);
  }
}
