// Shared by the `medfusion pack --part` / `medfusion merge` tests.
import { spawnSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type CliRun, labelledImages, runCli, tempDir } from './cliHelpers.js';

/** The arguments every parts test packs with: shuffled, seeded, split, size-cut shards. */
export const PART_ARGS = [
  '--shuffle',
  '--seed',
  '7',
  '--split',
  'train=0.8,val=0.1,test=0.1',
  '--shard-size',
  '4kB',
];

/** A labelled CSV data set of `n` images, the CSV beside them; returns the CSV's path. */
export function csvInput(n: number): string {
  const root = tempDir();
  labelledImages(root, n);
  const csv = join(root, 'images', 'labels.csv');
  renameSync(join(root, 'labels.csv'), csv);
  return csv;
}

/** Pack part `i` of `n` of `input` into a fresh folder; returns the folder and the run. */
export function packPart(
  input: string,
  i: number,
  n: number,
  args = PART_ARGS,
): { dir: string; run: CliRun } {
  const dir = join(tempDir('medfusion-part-'), `part-${i}`);
  const run = runCli(['pack', input, '--out', dir, '--part', `${i}/${n}`, ...args]);
  expect(run.code, run.stderr).toBe(0);
  return { dir, run };
}

/**
 * `sha256sum` (GNU coreutils, not our code) of every file under `dir`, as
 * `relative path → hex`, the names sorted by `find`'s listing then sorted here.
 */
export function sha256Tree(dir: string): Map<string, string> {
  const found = spawnSync('find', ['.', '-type', 'f', '-printf', '%P\\0'], {
    cwd: dir,
    encoding: 'utf8',
  });
  const names = found.stdout.split('\0').filter(Boolean).sort();
  const sums = spawnSync('sha256sum', ['--', ...names], { cwd: dir, encoding: 'utf8' });
  expect(sums.status, sums.stderr).toBe(0);
  const out = new Map<string, string>();
  for (const line of sums.stdout.trim().split('\n')) {
    const [hex, name] = line.split(/\s+\*?/, 2) as [string, string];
    out.set(name, hex);
  }
  return out;
}
