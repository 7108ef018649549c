import {
  nonNegativeInt,
  object,
  oneOfValues,
  positiveInt,
  showValue,
  withDefault,
} from '../util/validate.js';
import { type EpochPlan, iteratePlan } from './EpochPlan.js';

/** How ranks are made equal in length when the epoch does not divide by `worldSize`. */
export type EvenRanks = 'pad' | 'drop';

/** Which part of each epoch one rank reads: options of the DataLoader and {@link RankPlan}. */
export interface RankOptions {
  /**
   * This reader's number among `worldSize` readers (machines, processes,
   * workers or tabs training together), an integer in `[0, worldSize)`.
   * @default 0
   */
  rank?: number;
  /**
   * How many readers share each epoch. Rank `r` reads positions
   * `start + r, start + r + worldSize, …` of the epoch's order (PyTorch's
   * `DistributedSampler`): the ranks' parts are disjoint and together they
   * are the epoch, once.
   * @default 1
   */
  worldSize?: number;
  /**
   * When the epoch's length does not divide by `worldSize`: `'pad'` repeats
   * positions from the start of the order so every rank reads
   * `⌈length / worldSize⌉` samples (a few samples are read twice per epoch);
   * `'drop'` leaves out the last `length mod worldSize` positions so every
   * rank reads `⌊length / worldSize⌋` (PyTorch's `drop_last`).
   * @default 'pad'
   */
  evenRanks?: EvenRanks;
}

/** The checked {@link RankOptions}. */
export interface Ranks {
  rank: number;
  worldSize: number;
  evenRanks: EvenRanks;
}

/** Check {@link RankOptions}: TypeError / RangeError naming the option and the value. */
export function checkRanks(options: RankOptions): Ranks {
  object('options', options);
  const worldSize = withDefault('worldSize', options.worldSize, 1, positiveInt);
  const rank = withDefault('rank', options.rank, 0, nonNegativeInt);
  if (rank >= worldSize) {
    throw new RangeError(`rank must be below worldSize ${worldSize}, got ${showValue(rank)}`);
  }
  const evenRanks = withDefault('evenRanks', options.evenRanks, 'pad', (name, v) =>
    oneOfValues(name, v, ['pad', 'drop'] as const),
  );
  return { rank, worldSize, evenRanks };
}

/** Positions of the epoch each rank reads when `remaining` are left: ⌈ ⌉ (pad) or ⌊ ⌋ (drop). */
export function rankLength(remaining: number, ranks: Ranks): number {
  return ranks.evenRanks === 'pad'
    ? Math.ceil(remaining / ranks.worldSize)
    : Math.floor(remaining / ranks.worldSize);
}

/**
 * One rank's part of an epoch plan, from global position `start` on (the
 * positions before it were read, by whatever number of ranks): position `i`
 * is global position `start + rank + i · worldSize`; past the end, `'pad'`
 * wraps to `start` again. O(1) memory; `positionOf` when the plan has it (a
 * rank never reads an index twice, even padded).
 *
 * @example
 * const part = new RankPlan(new IndexPermutation(10, 7, 0), { rank: 1, worldSize: 4 });
 * part.length; // 3: global positions 1, 5, 9
 */
export class RankPlan implements EpochPlan {
  /** Positions this rank reads. */
  readonly length: number;
  private readonly ranks: Ranks;
  /** This rank's position of `index`, or -1 when another rank reads it (plans with `positionOf` only). */
  readonly positionOf: ((index: number) => number) | undefined;
  private readonly remaining: number;

  /**
   * @param base the epoch's order, the same on every rank
   * @param options rank, worldSize, evenRanks
   * @param start global positions already read (a resumed epoch)
   */
  constructor(
    private readonly base: EpochPlan,
    options: RankOptions,
    private readonly start = 0,
  ) {
    this.ranks = checkRanks(options);
    nonNegativeInt('start', start);
    this.remaining = Math.max(0, base.length - start);
    this.length = rankLength(this.remaining, this.ranks);
    if (base.positionOf !== undefined) {
      const positionOf = base.positionOf.bind(base);
      this.positionOf = (index) => {
        const q = positionOf(index);
        if (q < start) return -1;
        const { rank, worldSize } = this.ranks;
        const total = this.length * worldSize;
        // the position itself, then its padded copies
        for (let rel = q - start; rel < total; rel += this.remaining) {
          if (rel % worldSize === rank) return (rel - rank) / worldSize;
        }
        return -1;
      };
    }
  }

  /** The index read at this rank's position `i`. */
  indexAt(i: number): number {
    const rel = this.ranks.rank + i * this.ranks.worldSize;
    return this.base.indexAt(this.start + (rel % this.remaining));
  }

  /** The indices in order (materialises nothing). */
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }
}
