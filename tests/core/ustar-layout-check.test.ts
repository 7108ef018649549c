// checkUstarLayout against archives GNU tar wrote (the truth), then with a header
// changed by hand: the byte-by-byte fast path must accept exactly what decoding
// the fields accepts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkUstarLayout, ustarLayout } from '@medfusion/core/internal';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'ustar-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files: [string, number][] = [
  ['a.png', 700],
  ['a.cls', 1],
  ['b-with-a-longer-name_0123456789.png', 0],
  ['b-with-a-longer-name_0123456789.cls', 512],
  [`${'k'.repeat(96)}.png`, 3], // a name filling the whole 100-byte field
];

/** A ustar archive of `files` by GNU tar, and the layout core plans for it. */
function gnuTar() {
  for (const [name, size] of files) writeFileSync(join(dir, name), new Uint8Array(size).fill(7));
  const out = join(dir, 'gnu.tar');
  execFileSync('tar', [
    '--format=ustar',
    '--owner=0',
    '--group=0',
    '--mtime=@0',
    '-cf',
    out,
    '-C',
    dir,
    ...files.map(([n]) => n),
  ]);
  return {
    tar: new Uint8Array(readFileSync(out)),
    layout: ustarLayout(files.map(([name, size]) => ({ name, size }))).members,
  };
}

describe('checkUstarLayout', () => {
  it("accepts GNU tar's headers where ustarLayout put them", () => {
    const { tar, layout } = gnuTar();
    expect(() => checkUstarLayout(tar, layout, 'gnu.tar')).not.toThrow();
  });

  it('accepts a size field written with leading spaces and a space after (old tars)', () => {
    const { tar, layout } = gnuTar();
    const h = (layout[0]?.offset as number) - 512;
    tar.set(new TextEncoder().encode('      1274 '), h + 124); // 700 in octal, 12 bytes with its NUL
    tar[h + 135] = 0;
    expect(() => checkUstarLayout(tar, layout, 'gnu.tar')).not.toThrow();
  });

  it('names the member whose name differs', () => {
    const { tar, layout } = gnuTar();
    const h = (layout[2]?.offset as number) - 512;
    tar[h] = 'c'.charCodeAt(0);
    expect(() => checkUstarLayout(tar, layout, 'gnu.tar')).toThrow(
      /gnu\.tar: no ustar header for b-with-a-longer-name_0123456789\.png \(0 bytes\) at 2560; found "c-with/,
    );
  });

  it('names the member whose size differs, and a name longer than planned', () => {
    const { tar, layout } = gnuTar();
    const h = (layout[1]?.offset as number) - 512;
    tar[h + 134] = '2'.charCodeAt(0); // size 1 -> 2
    expect(() => checkUstarLayout(tar, layout, 'gnu.tar')).toThrow(
      /a\.cls \(1 bytes\).*\(2 bytes\)/,
    );
    const again = gnuTar();
    const h2 = (again.layout[1]?.offset as number) - 512;
    again.tar[h2 + 5] = 'x'.charCodeAt(0); // "a.clsx": the planned name is a prefix only
    expect(() => checkUstarLayout(again.tar, again.layout, 'gnu.tar')).toThrow(/found "a\.clsx"/);
  });

  it('rejects a size field that is not octal', () => {
    const { tar, layout } = gnuTar();
    const h = (layout[0]?.offset as number) - 512;
    tar[h + 134] = '9'.charCodeAt(0);
    expect(() => checkUstarLayout(tar, layout, 'gnu.tar')).toThrow(/a\.png \(700 bytes\)/);
  });
});
