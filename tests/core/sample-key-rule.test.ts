// The sample key rule both packers share (core's sampleKey), checked against the
// rule as docs/cli.md states it, written out here step by step, over generated
// paths: plain ones (the fast path) and ones with dots, backslashes, empty and `.`
// segments, spaces and long names (the general path).
import { createHash } from 'node:crypto';
import { sampleKey } from '@medfusion/core/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

/** The documented rule: path less its extension, other characters as `_`, long keys shortened with a hash. */
function expected(rel: string): string {
  const parts = rel.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  const posix = parts.join('/');
  const last = parts.at(-1) ?? '';
  const dot = last.lastIndexOf('.');
  const stem = dot > 0 ? posix.slice(0, posix.length - (last.length - dot)) : posix;
  const key = stem.replace(/[^A-Za-z0-9_/-]/g, '_').replace(/\/+/g, '/');
  return key.length <= 90 ? key : `${key.slice(0, 73)}_${sha(posix).slice(0, 16)}`;
}

const segment = (chars: string[]) =>
  fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 12 }).map((a) => a.join(''));

describe('sampleKey', () => {
  it('plain paths with one extension: the path less its extension', () => {
    const plain = segment([...'abcXYZ019_-']);
    fc.assert(
      fc.property(
        fc.array(plain, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('png', 'jpg', 'dcm', ''),
        (segs, ext) => {
          const rel = ext ? `${segs.join('/')}.${ext}` : segs.join('/');
          expect(sampleKey(rel, sha)).toBe(expected(rel));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('any path: the same key as the rule', () => {
    const any = segment([...'ab1_-. \\é']);
    fc.assert(
      fc.property(
        fc.array(any, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('/', '//', '/./'),
        (segs, join) => {
          const rel = segs.join(join);
          expect(sampleKey(rel, sha)).toBe(expected(rel));
        },
      ),
      { numRuns: 2000 },
    );
    for (const rel of ['a/b.c.png', 'x/.hidden', `${'a'.repeat(95)}.png`, 'a\\b.png', './a/b.png'])
      expect(sampleKey(rel, sha), rel).toBe(expected(rel));
  });
});
