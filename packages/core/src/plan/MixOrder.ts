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

/** Positions per block: every block holds each source's quota, shuffled. */
const BLOCK = 1024;
/** The `epoch` word of the blocks' permutations (sources' orders use their pass number). */
const MIX_EPOCH = 2 ** 52 + 0x6d6978;
const TWO_32 = 4294967296;

/** A stretch of the mix with one set of quotas: `full` blocks of BLOCK, then one partial block. */
interface Phase {
  start: number;
  full: number;
  quotas: Float64Array;
  partial: Float64Array;
  partialLength: number;
  /** Draws of each source before the phase. */
  base: Float64Array;
  /** Blocks before the phase. */
  blocks: number;
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
 * (source, that source's index). The positions are cut into blocks of 1024;
 * each block holds every source's quota (its weight × 1024, rounded by
 * systematic sampling with a seeded offset, so each quota is exact in
 * expectation) in a seeded shuffle; the k-th draw of source `j` reads
 * position `k mod length` of `IndexPermutation(length_j, seed, ⌊k / length_j⌋, j + 1)`.
 * A source that runs out ends a phase, after which the quotas follow
 * `onExhausted`. O(sources²) memory, O(sources) per position, whatever the
 * lengths. Internal to `mixDatasets`.
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
  private blockId = -1;
  private blockPerm: IndexPermutation | undefined;
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
    const words = philox4x32(
      0,
      0,
      MIX_EPOCH % TWO_32,
      0,
      this.seed >>> 0,
      Math.floor(this.seed / TWO_32) >>> 0,
      new Uint32Array(4),
    );
    const u = words[0]! / TWO_32;
    const natural = this.plan(weights, u);
    if (options.length !== undefined) nonNegativeInt('length', options.length);
    if (this.onExhausted === 'repeat') {
      this.length = options.length ?? lengths.reduce((a, b) => a + b, 0);
    } else this.length = Math.min(options.length ?? natural, natural);
  }

  /** Lay out the phases; returns the natural length (Infinity for 'repeat'). */
  private plan(weights: Float64Array, u: number): number {
    const m = this.lengths.length;
    const left = Float64Array.from(this.lengths);
    const base = new Float64Array(m);
    let start = 0;
    let blocks = 0;
    for (let j = 0; j < m; j++) {
      if (weights[j]! > 0 && left[j] === 0 && this.onExhausted !== 'renormalize') {
        if (this.onExhausted === 'stop') return 0;
        throw new RangeError(
          `source ${j} has no samples to repeat, but weights[${j}] is ${weights[j]}`,
        );
      }
    }
    for (;;) {
      const active: number[] = [];
      for (let j = 0; j < m; j++) if (weights[j]! > 0 && left[j]! > 0) active.push(j);
      if (active.length === 0) return start;
      let total = 0;
      for (const j of active) total += weights[j]!;
      const share = (j: number) => weights[j]! / total;
      const quotas = this.quotas(active, share, BLOCK, u);
      if (this.onExhausted === 'repeat') {
        this.phases.push({
          start,
          full: Infinity,
          quotas,
          partial: quotas,
          partialLength: 0,
          base,
          blocks,
        });
        return Infinity;
      }
      let full = Infinity;
      for (const j of active)
        if (quotas[j]! > 0) full = Math.min(full, Math.floor(left[j]! / quotas[j]!));
      // the last, shorter block keeps the shares too: as long as the scarcest source lasts
      let scarce = active[0]!;
      let size = Infinity;
      for (const j of active) {
        const rest = left[j]! - full * quotas[j]!;
        if (rest / share(j) < size) {
          size = rest / share(j);
          scarce = j;
        }
      }
      const partial = this.quotas(active, share, Math.min(BLOCK, Math.floor(size)), u);
      let partialLength = 0;
      for (const j of active) {
        const rest = left[j]! - full * quotas[j]!;
        partial[j] = j === scarce ? rest : Math.min(partial[j]!, rest);
        partialLength += partial[j]!;
      }
      this.phases.push({ start, full, quotas, partial, partialLength, base: base.slice(), blocks });
      start += full * BLOCK + partialLength;
      blocks += full + 1;
      for (const j of active) {
        const used = full * quotas[j]! + partial[j]!;
        left[j] = left[j]! - used;
        base[j] = base[j]! + used;
      }
      if (this.onExhausted === 'stop') return start;
    }
  }

  /**
   * Each active source's quota of a block of `size` positions: systematic
   * sampling (boundaries at ⌈cumulative share × size − u⌉), so a quota is
   * its share × size in expectation over `u` and off by less than 1.
   */
  private quotas(
    active: number[],
    share: (j: number) => number,
    size: number,
    u: number,
  ): Float64Array {
    const quotas = new Float64Array(this.lengths.length);
    let cum = 0;
    let prev = 0;
    active.forEach((j, a) => {
      cum += share(j);
      const s =
        a === active.length - 1 ? size : Math.min(size, Math.max(prev, Math.ceil(cum * size - u)));
      quotas[j] = s - prev;
      prev = s;
    });
    return quotas;
  }

  /** The source read at mix position `p` (in [0, length)); its draw number is left in {@link draw}. */
  locate(p: number): number {
    const phases = this.phases;
    let t = phases.length - 1;
    while (t > 0 && phases[t]!.start > p) t--;
    const ph = phases[t]!;
    const local = p - ph.start;
    const b = Math.min(ph.full, Math.floor(local / BLOCK));
    const inFull = b < ph.full;
    const size = inFull ? BLOCK : ph.partialLength;
    const quotas = inFull ? ph.quotas : ph.partial;
    const id = ph.blocks + b;
    if (id !== this.blockId || this.blockPerm?.length !== size) {
      this.blockId = id;
      this.blockPerm = new IndexPermutation(size, this.seed, MIX_EPOCH, (id % (TWO_32 - 1)) + 1);
    }
    let slot = this.blockPerm!.indexAt(local - b * BLOCK);
    for (let j = 0; j < quotas.length; j++) {
      if (slot < quotas[j]!) {
        this.draw = ph.base[j]! + b * ph.quotas[j]! + slot;
        return j;
      }
      slot -= quotas[j]!;
    }
    throw new RangeError(`mix position ${p} is out of range [0, ${this.length})`);
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
