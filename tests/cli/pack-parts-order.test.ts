// The parts of `medfusion pack --part` are independent: run in any order (here
// the last first, and two at once), given to merge in any order, more parts than
// shards; the merged data set is the one-machine pack's either way.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir } from './cliHelpers.js';
import { csvInput, PART_ARGS, packPart, sha256Tree } from './partsHelpers.js';

/** Run `medfusion <args>` without blocking; resolves with the exit code. */
function runAsync(args: string[]): Promise<number | null> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: 'ignore' });
    child.on('exit', (code) => done(code));
  });
}

describe('medfusion pack --part: any order', () => {
  it('parts run last-first and concurrently, merged in a shuffled order, give the one-machine bytes', async () => {
    const input = csvInput(60);
    const one = join(tempDir(), 'one');
    expect(runCli(['pack', input, '--out', one, ...PART_ARGS]).code).toBe(0);
    const dirs = [1, 2, 3, 4].map((i) => join(tempDir('medfusion-part-'), `p${i}`));
    const pack = (i: number) =>
      runAsync(['pack', input, '--out', dirs[i - 1] as string, '--part', `${i}/4`, ...PART_ARGS]);
    expect(await pack(4)).toBe(0);
    expect(await Promise.all([pack(2), pack(3)])).toEqual([0, 0]);
    expect(await pack(1)).toBe(0);
    const merged = join(tempDir(), 'merged');
    const order = [dirs[2], dirs[0], dirs[3], dirs[1]] as string[];
    const run = runCli(['merge', ...order, '--out', merged]);
    expect(run.code, run.stderr).toBe(0);
    expect(Object.fromEntries(sha256Tree(merged))).toEqual(Object.fromEntries(sha256Tree(one)));
    // A second merge into the complete output changes nothing.
    const again = runCli(['merge', ...order, '--out', merged]);
    expect(again.stdout).toMatch(/already complete/);
  });

  it('more parts than shards: the spare parts write no shard, the merge is still whole', () => {
    const input = csvInput(12);
    const args = ['--shuffle', '--seed', '2', '--samples-per-shard', '5'];
    const one = join(tempDir(), 'one');
    expect(runCli(['pack', input, '--out', one, ...args]).code).toBe(0);
    const tars = [...sha256Tree(one).keys()].filter((n) => n.endsWith('.tar'));
    expect(tars.length).toBe(3);
    const parts = [5, 1, 4, 2, 3].map((i) => packPart(input, i, 5, args).dir);
    const merged = join(tempDir(), 'merged');
    expect(runCli(['merge', ...parts, '--out', merged]).code).toBe(0);
    expect(Object.fromEntries(sha256Tree(merged))).toEqual(Object.fromEntries(sha256Tree(one)));
  });
});
