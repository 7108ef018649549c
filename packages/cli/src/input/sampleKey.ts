import { createHash } from 'node:crypto';

/** Longest key: leaves room for `.json` / `.png` within one 100-byte ustar name. */
const MAX_KEY = 90;

/**
 * The WebDataset key of a file at relative path `rel`: the path without its
 * extension, with every character but letters, digits, `_`, `-` and `/`
 * replaced by `_` (a dot would end the key early). A key past 90 bytes keeps
 * its first 73 characters and gets 16 hex digits of the path's sha256.
 */
export function sampleKey(rel: string): string {
  const posix = rel
    .split(/[\\/]+/)
    .filter((p) => p !== '' && p !== '.')
    .join('/');
  const slash = posix.lastIndexOf('/');
  const dot = posix.lastIndexOf('.');
  const stem = dot > slash + 1 ? posix.slice(0, dot) : posix;
  const key = stem.replace(/[^A-Za-z0-9_/-]/g, '_').replace(/\/+/g, '/');
  if (key.length <= MAX_KEY) return key;
  const hash = createHash('sha256').update(posix).digest('hex').slice(0, 16);
  return `${key.slice(0, MAX_KEY - 17)}_${hash}`;
}
