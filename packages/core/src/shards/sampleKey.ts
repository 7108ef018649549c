/** Longest key: leaves room for `.json` / `.png` within one 100-byte ustar name. */
const MAX_KEY = 90;

/** Folders and a stem of key characters only, then at most one extension (no `.`, `/` or `\\` in it). */
const PLAIN_PATH = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*(?:\.[^./\\]*)?$/;

/**
 * The WebDataset key of a file at relative path `rel`: the path without its
 * extension, with every character but letters, digits, `_`, `-` and `/`
 * replaced by `_` (a dot would end the key early). A key past 90 bytes keeps
 * its first 73 characters and gets the first 16 hex digits of
 * `sha256Hex(path)` (the packer's own sha256: zlib's in Node, hash-wasm's in a
 * browser), so keys are the same whichever packer made them.
 */
export function sampleKey(rel: string, sha256Hex: (text: string) => string): string {
  // The common case, a plain path with one extension (`cat/img001.png`): the rule
  // below gives the path less its extension, and a pack of 10^6 files asks often.
  if (PLAIN_PATH.test(rel)) {
    const dot = rel.lastIndexOf('.');
    const key = dot < 0 ? rel : rel.slice(0, dot);
    if (key.length <= MAX_KEY) return key;
  }
  const posix = rel
    .split(/[\\/]+/)
    .filter((p) => p !== '' && p !== '.')
    .join('/');
  const slash = posix.lastIndexOf('/');
  const dot = posix.lastIndexOf('.');
  const stem = dot > slash + 1 ? posix.slice(0, dot) : posix;
  const key = stem.replace(/[^A-Za-z0-9_/-]/g, '_').replace(/\/+/g, '/');
  if (key.length <= MAX_KEY) return key;
  return `${key.slice(0, MAX_KEY - 17)}_${sha256Hex(posix).slice(0, 16)}`;
}

/**
 * Check that no two samples share a key (two files would become one sample):
 * the first repeat goes to `fail` with a message naming both sources (the
 * packers' one rule; `medfusion pack` and `packFiles` each raise their own error).
 */
export function checkUniqueKeys<T extends { key: string; source: string }>(
  samples: readonly T[],
  fail: (sample: T, message: string) => never,
): void {
  const seen = new Map<string, T>();
  for (const s of samples) {
    const other = seen.get(s.key);
    if (other) {
      fail(
        s,
        `sample key "${s.key}" is also the key of ${other.source}: two files would be one sample (rename one of them)`,
      );
    }
    seen.set(s.key, s);
  }
}
