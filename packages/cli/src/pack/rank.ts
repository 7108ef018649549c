import { hash } from 'node:crypto';

/** A seeded hash of `text`: a stable pseudo-random order that does not depend on the input order. */
export function seededRank(seed: number, text: string): string {
  return hash('sha256', `${seed}\0${text}`, 'hex');
}

/** The first 53 bits of `text`'s sha256 as a number: sorts as its hex digest does (ties aside). */
export function rank53(text: string): number {
  const b = hash('sha256', text, 'buffer');
  return b.readUIntBE(0, 6) * 32 + ((b[6] as number) >> 3);
}

/** {@link rank53} of {@link seededRank}'s text: the same order, as a number. */
export function seededRank53(seed: number, text: string): number {
  return rank53(`${seed}\0${text}`);
}

/**
 * Sort `items` (indices) by `groups[item]` when given, then by `ranks[item]`,
 * ties by `full(item)` (the whole digest), then by index: the order a sort by
 * full digests gives, holding one number per item instead of one string.
 */
export function sortByRank(
  items: Uint32Array,
  ranks: Float64Array,
  full: (item: number) => string,
  groups?: Float64Array,
): void {
  items.sort((a, b) => {
    const g = groups ? (groups[a] as number) - (groups[b] as number) : 0;
    if (g !== 0) return g;
    const d = (ranks[a] as number) - (ranks[b] as number);
    if (d !== 0) return d;
    const fa = full(a);
    const fb = full(b);
    return fa < fb ? -1 : fa > fb ? 1 : a - b;
  });
}

/**
 * A fast 53-bit hash of `text` (two 32-bit multiply-xor lanes over its UTF-16
 * code units, not cryptographic): for telling keys apart in bulk, where equal
 * hashes are then compared as strings.
 */
export function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
