import { nonNegativeInt } from '../util/validate.js';
import { IndexPermutation } from './IndexPermutation.js';

/**
 * The order of one epoch as an array: `IndexPermutation(n, seed, epoch)`
 * materialised (see its definition; it is stable across versions from 0.2
 * on). The result depends only on `(n, seed, epoch)`: it is the same on every
 * machine, in every worker, and can be recomputed after a restart. The
 * DataLoader does not build this array (it reads the permutation position by
 * position); use it to inspect or store an order.
 *
 * @param n number of samples (at most 2^32 − 1; the permutation itself goes to 2^53)
 * @param seed any integer in [0, 2^53)
 * @param epoch any integer in [0, 2^53)
 * @param out optional array of length ≥ n to fill (a fresh one otherwise)
 * @example
 * shuffledOrder(5, 42, 0); // Uint32Array [a permutation of 0..4]
 */
export function shuffledOrder(
  n: number,
  seed: number,
  epoch: number,
  out?: Uint32Array,
): Uint32Array {
  nonNegativeInt('n', n);
  if (n > 0xffffffff) throw new RangeError(`n must be below 2^32, got ${n}`);
  const perm = new IndexPermutation(n, seed, epoch);
  const order = out ?? new Uint32Array(n);
  if (order.length < n) throw new RangeError(`out must hold ${n} elements, got ${order.length}`);
  for (let p = 0; p < n; p++) order[p] = perm.indexAt(p);
  return order;
}
