// The contract's values and its search through a store's bytes at rest.
//
// A record's bytes at rest are plaintext or ciphertext the test cannot predict, so a record is
// known by its *traces*: the 32-byte windows of high entropy (≥ 26 distinct bytes, which
// random or sealed data has and headers, keys, JSON and page structure do not) that appeared at
// rest when it was written. A copy left after a delete shows as one of them found again.

/** Bytes that depend on the key (seeded hash) and the position, so a value read under the wrong key or offset shows. */
export function keyedBytes(key: string, size: number, seed = 0, step = 13): Uint8Array {
  const b = new Uint8Array(size);
  let h = seed;
  for (const c of key) h = (h * 31 + c.charCodeAt(0)) | 0;
  for (let i = 0; i < size; i++) b[i] = (h + i * step) & 0xff;
  return b;
}

/** The contract's value for `key`: {@link keyedBytes}. */
export const keyed = (key: string, size: number): Uint8Array => keyedBytes(key, size);

/** `size` bytes of a seeded xorshift stream: incompressible, unique per seed. */
export function randomValue(seed: number, size: number): Uint8Array {
  const b = new Uint8Array(size);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}

/** `text` repeated to `size` bytes: plaintext a raw scan can look for. */
export function textValue(text: string, size: number): Uint8Array {
  const w = new TextEncoder().encode(text);
  return new Uint8Array(size).map((_, i) => w[i % w.length]!);
}

const WINDOW = 32;
const MIN_DISTINCT = 26;
const HALF = WINDOW / 2;

/** Longest run of printable ASCII a trace may hold: JSON, keys and text have longer ones. */
const MAX_TEXT_RUN = 7;

/**
 * Distinct bytes of the window at `at`; 0 for a window with a run of more than
 * {@link MAX_TEXT_RUN} printable ASCII bytes (an index snapshot's header and JSON, a key),
 * which is never a trace however varied (random bytes have such a run in ~1 % of windows).
 */
function distinct(b: Uint8Array, at: number): number {
  const seen = new Set<number>();
  let run = 0;
  for (let i = 0; i < WINDOW; i++) {
    const c = b[at + i]!;
    seen.add(c);
    run = c >= 0x20 && c <= 0x7e ? run + 1 : 0;
    if (run > MAX_TEXT_RUN) return 0;
  }
  return seen.size;
}

/** Traces of a record: windows in `after` that are not in `before`. */
export class Traces {
  /** First 4 bytes of a window → the windows starting with them. */
  private readonly byHead = new Map<number, Uint8Array[]>();
  /** Number of windows. */
  size = 0;

  /**
   * Windows (stride 16) of high entropy in `after` neither half of which (16 bytes) occurs in
   * `before`: bytes the write added, not a window straddling older bytes and a new record's
   * unchanging start (a header's magic after the last bytes of the record before it).
   */
  static between(before: Uint8Array[], after: Uint8Array[]): Traces {
    const candidates: Uint8Array[] = [];
    for (const b of after) {
      for (let at = 0; at + WINDOW <= b.length; at += 16) {
        if (distinct(b, at) >= MIN_DISTINCT) candidates.push(b.subarray(at, at + WINDOW));
      }
    }
    const halves = new Map<number, Uint8Array[]>();
    const pairs = candidates.map((w) => [w.subarray(0, HALF), w.subarray(HALF)] as const);
    for (const pair of pairs) {
      for (const h of pair) {
        const head = new DataView(h.buffer, h.byteOffset, 4).getUint32(0, true);
        const list = halves.get(head);
        if (list) list.push(h);
        else halves.set(head, [h]);
      }
    }
    const seen = new Set<Uint8Array>();
    for (const b of before) {
      const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
      for (let at = 0; at + HALF <= b.length; at++) {
        const list = halves.get(dv.getUint32(at, true));
        if (list) for (const h of list) if (!seen.has(h) && sameN(h, b, at, HALF)) seen.add(h);
      }
    }
    const out = new Traces();
    candidates.forEach((w, i) => {
      const [a, z] = pairs[i]!;
      if (!seen.has(a) && !seen.has(z)) out.add(w);
    });
    return out;
  }

  private add(w: Uint8Array): void {
    const head = new DataView(w.buffer, w.byteOffset, 4).getUint32(0, true);
    const list = this.byHead.get(head);
    if (list) list.push(w);
    else this.byHead.set(head, [w]);
    this.size++;
  }

  /** How many of these windows occur anywhere (at any offset) in `raw`. */
  foundIn(raw: Uint8Array[]): number {
    const found = new Set<Uint8Array>();
    for (const b of raw) {
      if (b.length < WINDOW) continue;
      const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
      for (let at = 0; at + WINDOW <= b.length; at++) {
        const list = this.byHead.get(dv.getUint32(at, true));
        if (!list) continue;
        for (const w of list) if (!found.has(w) && same(w, b, at)) found.add(w);
      }
    }
    return found.size;
  }
}

function same(w: Uint8Array, b: Uint8Array, at: number): boolean {
  return sameN(w, b, at, WINDOW);
}

function sameN(w: Uint8Array, b: Uint8Array, at: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (w[i] !== b[at + i]) return false;
  return true;
}

/** Whether `needle` occurs in any of `raw`. */
export function containsBytes(raw: Uint8Array[], needle: Uint8Array): boolean {
  for (const hay of raw) {
    outer: for (let i = 0; i + needle.length <= hay.length; i++) {
      for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
      return true;
    }
  }
  return false;
}

/**
 * Assert `got` holds exactly `want`'s bytes: one pass, where `toEqual` on a typed array of
 * megabytes takes seconds; a mismatch names the first differing byte.
 */
export function expectBytes(got: Uint8Array | undefined, want: Uint8Array, label = ''): void {
  if (!(got instanceof Uint8Array))
    throw new Error(`${label}: expected ${want.length} bytes, got ${String(got)}`);
  if (got.length !== want.length)
    throw new Error(`${label}: expected ${want.length} bytes, got ${got.length}`);
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i])
      throw new Error(`${label}: byte ${i} is ${got[i]}, expected ${want[i]}`);
  }
}
