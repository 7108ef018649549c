// Issue 45: `medfusion pack --part i/n` plans from the listing (names and sizes),
// so each part reads, checks and hashes only its own files. Counted from outside:
// the kernel's /proc/<pid>/io `rchar` of each part's process, taken as a difference
// between two inputs (one the other plus as many files again), so what a process reads
// whatever its input (Node, the modules, each pool worker's modules) cancels out; and a
// broken file seen only by its own part.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { png, runCliCountingReads, tempDir, writeTree } from './cliHelpers.js';

/**
 * `n` noise PNGs of `size`² (16 kB each at 128) under `root/<a|b>/`, in a known order, the
 * first `from` left out; their total bytes.
 */
function folder(root: string, n: number, size = 128, from = 0): number {
  const files: [string, Uint8Array][] = [];
  for (let i = from; i < n; i++)
    files.push([`${i % 2 ? 'b' : 'a'}/img${String(i).padStart(4, '0')}.png`, png(i, size)]);
  writeTree(root, files);
  return files.reduce((a, [, b]) => a + b.length, 0);
}

describe('medfusion pack --part reads only its own files', () => {
  it('four parts together read the input about once, each about a quarter (rchar of 800 files less 400)', () => {
    // The first 400 files, then the same folder with 400 more: what a part reads of the added
    // bytes is its share of the input. A fixed cost (the CI machine's part processes once read
    // ~440 kB more than a one-file pack, the bound this test had before) is the same in both runs.
    const input = tempDir();
    const smallBytes = folder(input, 400);
    // The fewer of two runs: a part process of a CI run beside the store contract once read
    // ~420 kB more in one of eight runs (0.349 of the added bytes, the other parts 0.246-0.256),
    // not again; a part that read others' files would read them in both runs.
    const rchar = (i: number) => Math.min(rcharOnce(i), rcharOnce(i));
    const rcharOnce = (i: number) => {
      const r = runCliCountingReads([
        'pack',
        input,
        '--out',
        join(tempDir(), `p${i}`),
        '--folder-labels',
        '--samples-per-shard',
        '25',
        '--part',
        `${i}/4`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(Number.isFinite(r.rchar), r.stderr).toBe(true);
      return r.rchar;
    };
    const small = [1, 2, 3, 4].map(rchar);
    const addedBytes = folder(input, 800, 128, 400);
    const large = [1, 2, 3, 4].map(rchar);
    const reads = large.map((l, k) => (l - (small[k] as number)) / addedBytes);
    const total = reads.reduce((a, b) => a + b, 0);
    const figures = `input ${smallBytes} + ${addedBytes} B; shares of the added bytes ${reads.map((r) => r.toFixed(3)).join(' ')}`;
    // Before issue 45 each part read every file: about 1.0 each, 4.0 together.
    expect(total, figures).toBeGreaterThan(0.9);
    expect(total, figures).toBeLessThan(1.1);
    for (const share of reads) expect(share, figures).toBeLessThan(0.35);
  });

  it('a broken file stops only the part that packs it, naming it', () => {
    const input = tempDir();
    folder(input, 60);
    // The last file in sorted order (b/img0059.png) lands in part 3's shards: one byte flipped
    // in its pixel data (its chunk's CRC no longer matches).
    const bad = join(input, 'b/img0059.png');
    const bytes = readFileSync(bad);
    bytes[bytes.length - 40] = (bytes[bytes.length - 40] as number) ^ 0xff;
    writeFileSync(bad, bytes);
    const run = (i: number) =>
      runCliCountingReads([
        'pack',
        input,
        '--out',
        join(tempDir(), `p${i}`),
        '--samples-per-shard',
        '10',
        '--part',
        `${i}/3`,
      ]);
    expect(run(1).code).toBe(0);
    expect(run(2).code).toBe(0);
    const third = run(3);
    expect(third.code).toBe(1);
    expect(third.stderr).toMatch(/b\/img0059\.png: .*CRC/i);
  });

  it('the fingerprint covers contents: same names and sizes, one file changed, another fingerprint', () => {
    const one = tempDir();
    folder(one, 20, 64);
    const two = tempDir();
    folder(two, 20, 64);
    const other = png(999, 64);
    expect(other.length).toBe(statSync(join(two, 'a/img0000.png')).size); // same size, other bytes
    writeFileSync(join(two, 'a/img0000.png'), other);
    const fingerprint = (input: string) => {
      const out = join(tempDir(), 'o');
      const r = runCliCountingReads(['pack', input, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).fingerprint as string;
    };
    const a = fingerprint(one);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(one)).toBe(a);
    expect(fingerprint(two)).not.toBe(a);
  });
});
