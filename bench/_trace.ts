// Seeded access traces for `pnpm bench seed` (the DESIGN.md scenario): every sample is
// read 2 or 3 times. Not part of the library: the PRNG and the generators live here.

/** mulberry32: small, fast, seeded; uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates shuffle of `items` in place. */
function shuffle(items: Int32Array, rand: () => number): Int32Array {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = items[i]!;
    items[i] = items[j]!;
    items[j] = t;
  }
  return items;
}

/** How often each of `n` samples is read: 2 or 3, half and half (seeded). */
export function visitCounts(n: number, rand: () => number): Uint8Array {
  const visits = new Uint8Array(n);
  for (let i = 0; i < n; i++) visits[i] = rand() < 0.5 ? 2 : 3;
  return visits;
}

/**
 * `shuffled-epochs`: pass 1 and pass 2 are fresh permutations of every sample,
 * pass 3 a permutation of the samples read three times.
 */
export function shuffledEpochs(n: number, seed: number): Int32Array {
  const rand = prng(seed);
  const visits = visitCounts(n, rand);
  const out: number[] = [];
  for (let pass = 1; pass <= 3; pass++) {
    const members: number[] = [];
    for (let i = 0; i < n; i++) if (visits[i]! >= pass) members.push(i);
    for (const i of shuffle(Int32Array.from(members), rand)) out.push(i);
  }
  return Int32Array.from(out);
}

/**
 * `local-repeats`: samples come in a random order, and all the reads of one
 * sample fall within a window of `window` accesses (each read is placed at the
 * sample's slot plus a uniform offset in [0, window), then reads are sorted).
 */
export function localRepeats(n: number, window: number, seed: number): Int32Array {
  const rand = prng(seed);
  const visits = visitCounts(n, rand);
  const rank = shuffle(
    Int32Array.from({ length: n }, (_, i) => i),
    rand,
  );
  let total = 0;
  for (let i = 0; i < n; i++) total += visits[i]!;
  const spacing = total / n;
  const keys = new Float64Array(total);
  const ids = new Int32Array(total);
  let k = 0;
  for (let r = 0; r < n; r++) {
    const id = rank[r]!;
    for (let v = 0; v < visits[id]!; v++) {
      keys[k] = r * spacing + rand() * window;
      ids[k] = id;
      k++;
    }
  }
  const order = Array.from({ length: total }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]!);
  return Int32Array.from(order, (i) => ids[i]!);
}

/** Largest distance (in accesses) between the first and last read of any sample. */
export function maxSpread(trace: Int32Array, n: number): number {
  const first = new Int32Array(n).fill(-1);
  let spread = 0;
  for (let p = 0; p < trace.length; p++) {
    const id = trace[p]!;
    if (first[id] === -1) first[id] = p;
    else spread = Math.max(spread, p - first[id]!);
  }
  return spread;
}
