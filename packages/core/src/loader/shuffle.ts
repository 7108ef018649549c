import { nonNegativeInt } from '../util/validate.js';
import { philox4x32 } from './counterRng.js';

const TWO_32 = 4294967296;
const TWO_26 = 67108864;
const TWO_NEG_53 = 2 ** -53;

/**
 * The order of one epoch: a Fisher–Yates shuffle of `0..n-1` whose swap at
 * step `i` is drawn from Philox4x32-10 with counter `(⌊i/2⌋, epoch, 0, 0)` and
 * key `seed` (words 0–1 for even `i`, 2–3 for odd `i`, 53 bits each). The result depends only on `(n, seed, epoch)`: it is the same on
 * every machine, in every worker, and can be recomputed after a restart.
 *
 * @param n number of samples (at most 2^32 − 1)
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
  nonNegativeInt('seed', seed);
  nonNegativeInt('epoch', epoch);
  if (n > 0xffffffff) throw new RangeError(`n must be below 2^32, got ${n}`);
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be below 2^53, got ${seed}`);
  if (!Number.isSafeInteger(epoch)) throw new RangeError(`epoch must be below 2^53, got ${epoch}`);
  const order = out ?? new Uint32Array(n);
  if (order.length < n) throw new RangeError(`out must hold ${n} elements, got ${order.length}`);
  for (let i = 0; i < n; i++) order[i] = i;
  const k0 = seed >>> 0;
  const k1 = Math.floor(seed / TWO_32) >>> 0;
  const e0 = epoch >>> 0;
  const e1 = Math.floor(epoch / TWO_32) >>> 0;
  const words = new Uint32Array(4);
  let block = -1;
  for (let i = n - 1; i > 0; i--) {
    const b = i >>> 1;
    if (b !== block) {
      philox4x32(b, e0, e1, 0, k0, k1, words);
      block = b;
    }
    const w = (i & 1) << 1;
    // 53 uniform bits → [0, 1), scaled to [0, i]; the clamp guards rounding.
    const u = ((words[w]! >>> 5) * TWO_26 + (words[w + 1]! >>> 6)) * TWO_NEG_53;
    const j = Math.min(i, Math.floor(u * (i + 1)));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}
