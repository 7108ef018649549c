// Same input and arguments → byte-identical output, whatever the listing order
// and wherever the input lives; a killed pack resumes from its complete shards
// and ends with the same bytes; Ctrl-C stops cleanly.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { png, readTree, runCli, startCli, tempDir, writeTree } from './cliHelpers.js';

/**
 * A folder of `n` labelled PNGs (`<label>/<name>.png`), files created in `order`,
 * under /tmp (ext4 here: listed in hash order) or in `shm` (tmpfs: newest first).
 */
function folder(n: number, order: 'forward' | 'reverse', size = 16, shm = false): string {
  const root = shm ? mkdtempSync('/dev/shm/medfusion-cli-') : tempDir();
  const files: [string, Uint8Array][] = [];
  for (let i = 0; i < n; i++)
    files.push([`${['a', 'b', 'c'][i % 3]}/s${(i * 7919) % 1000}.png`, png(i, size)]);
  writeTree(root, order === 'forward' ? files : files.reverse());
  return root;
}

function same(a: Map<string, Buffer>, b: Map<string, Buffer>): void {
  expect([...a.keys()]).toEqual([...b.keys()]);
  for (const [name, bytes] of a) expect(Buffer.compare(bytes, b.get(name) as Buffer), name).toBe(0);
}

const args = [
  '--folder-labels',
  '--shuffle',
  '--seed',
  '9',
  '--samples-per-shard',
  '5',
  '--split',
  'train=0.7,val=0.3',
];

describe('medfusion pack is deterministic', () => {
  it('gives byte-identical output for the same files listed in another order, from another folder', () => {
    const one = folder(30, 'forward');
    const two = folder(30, 'reverse', 16, true);
    // The file systems list the same names in different orders (ls -f: unsorted).
    const listing = (dir: string) =>
      spawnSync('ls', ['-f', join(dir, 'a')], { encoding: 'utf8' }).stdout;
    expect(listing(one)).not.toBe(listing(two));
    const outOne = join(tempDir(), 'out');
    const outTwo = join(tempDir(), 'out');
    expect(runCli(['pack', one, '--out', outOne, ...args]).code).toBe(0);
    expect(runCli(['pack', two, '--out', outTwo, ...args]).code).toBe(0);
    const a = readTree(outOne);
    same(a, readTree(outTwo));
    expect([...a.keys()].filter((n) => n.endsWith('.tar')).length).toBeGreaterThan(2);
    // A rerun over the complete output changes nothing.
    const again = runCli(['pack', one, '--out', outOne, ...args]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already complete/);
    same(a, readTree(outOne));
    rmSync(two, { recursive: true, force: true });
  });

  it('another seed gives another order (the shuffle is real)', () => {
    const input = folder(30, 'forward');
    const out1 = join(tempDir(), 'o');
    const out2 = join(tempDir(), 'o');
    runCli(['pack', input, '--out', out1, '--shuffle', '--seed', '1']);
    runCli(['pack', input, '--out', out2, '--shuffle', '--seed', '2']);
    const m1 = readFileSync(join(out1, 'data-000000.tar.idx.json'), 'utf8');
    const m2 = readFileSync(join(out2, 'data-000000.tar.idx.json'), 'utf8');
    expect(m1).not.toBe(m2);
  });
});

describe('medfusion pack resumes', () => {
  const bigArgs = ['--folder-labels', '--samples-per-shard', '4', '--json'];

  /** Start a pack and stop it with `signal` once its first shard is written; resolves with the exit. */
  function packUntilFirstShard(input: string, out: string, signal: NodeJS.Signals) {
    const child = startCli(['pack', input, '--out', out, ...bigArgs]);
    let text = '';
    return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
      (resolve) => {
        let stderr = '';
        child.stderr?.on('data', (d) => {
          stderr += d;
        });
        child.stdout?.on('data', (d) => {
          text += d;
          if (/"event":"note"/.test(text) && !child.killed) child.kill(signal);
        });
        child.on('exit', (code, sig) => resolve({ code, signal: sig, stderr }));
      },
    );
  }

  it('after a kill: no manifest.json; the rerun keeps the complete shards and ends byte-identical to a clean run', async () => {
    const input = folder(240, 'forward', 96);
    const out = join(tempDir(), 'out');
    const killed = await packUntilFirstShard(input, out, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    const tars = readdirSync(out).filter((n) => n.endsWith('.tar'));
    expect(tars.length).toBeGreaterThan(0);
    expect(tars.length).toBeLessThan(60);
    const rerun = runCli(['pack', input, '--out', out, ...bigArgs]);
    expect(rerun.code).toBe(0);
    const done = JSON.parse(rerun.stdout.trim().split('\n').at(-1) as string);
    expect(done.resumed).toBeGreaterThanOrEqual(tars.length - 1);
    expect(done.resumed).toBeLessThan(done.shards);
    const clean = join(tempDir(), 'out');
    expect(runCli(['pack', input, '--out', clean, ...bigArgs]).code).toBe(0);
    same(readTree(out), readTree(clean));
    expect(runCli(['verify', out]).code).toBe(0);
  });

  it('Ctrl-C (SIGINT) stops cleanly: exit 130, no temporary file, no manifest, and the rerun completes', async () => {
    const input = folder(240, 'forward', 96);
    const out = join(tempDir(), 'out');
    const stopped = await packUntilFirstShard(input, out, 'SIGINT');
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/run the same command again to continue/);
    const names = readdirSync(out);
    expect(names.filter((n) => n.endsWith('.partial'))).toEqual([]);
    expect(names).not.toContain('manifest.json');
    const rerun = runCli(['pack', input, '--out', out, ...bigArgs]);
    expect(rerun.code).toBe(0);
    expect(runCli(['verify', out]).code).toBe(0);
  });
});
