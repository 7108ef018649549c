// `medfusion pack --part i/n` on n "machines", then `medfusion merge`, gives the
// very bytes a one-machine `medfusion pack` of the same input and arguments
// gives: every shard, every sidecar, every manifest (checked with sha256sum and cmp).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './cliHelpers.js';
import { csvInput, PART_ARGS, packPart, sha256Tree } from './partsHelpers.js';

describe('medfusion pack --part + merge', () => {
  it('is byte-identical to a one-machine pack (shuffle, seed, split, shard size)', () => {
    const input = csvInput(90);
    const one = join(tempDir(), 'one');
    const whole = runCli(['pack', input, '--out', one, ...PART_ARGS]);
    expect(whole.code, whole.stderr).toBe(0);
    const parts = [1, 2, 3].map((i) => packPart(input, i, 3).dir);
    // Each part wrote only its own shards, and not the manifests.
    const written = parts.map((d) => [...sha256Tree(d).keys()].filter((n) => n.endsWith('.tar')));
    expect(written.every((w) => w.length > 0)).toBe(true);
    expect(new Set(written.flat()).size).toBe(written.flat().length);
    for (const d of parts) expect(sha256Tree(d).has('manifest.json')).toBe(false);

    const merged = join(tempDir(), 'merged');
    const run = runCli(['merge', ...parts, '--out', merged]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/merged 3 parts: 90 samples/);

    const a = sha256Tree(one);
    const b = sha256Tree(merged);
    expect([...b.keys()]).toEqual([...a.keys()]);
    expect(Object.fromEntries(b)).toEqual(Object.fromEntries(a));
    const names = [...a.keys()];
    expect(names).toContain('manifest.json');
    expect(names).toContain('manifest.train.json');
    expect(names.filter((n) => n.endsWith('.tar')).length).toBe(written.flat().length);
    expect(names.filter((n) => n.endsWith('.tar')).length).toBeGreaterThan(6);
    for (const name of names) {
      const cmp = spawnSync('cmp', [join(one, name), join(merged, name)]);
      expect(cmp.status, `cmp ${name}`).toBe(0);
    }
    // The fingerprint is the one-machine pack's, so a disk tier keyed on it stays valid.
    const fingerprint = JSON.parse(readFileSync(join(merged, 'manifest.json'), 'utf8')).fingerprint;
    expect(fingerprint).toBe(
      JSON.parse(readFileSync(join(one, 'manifest.json'), 'utf8')).fingerprint,
    );
    // And verify (every shard re-read) agrees.
    expect(runCli(['verify', merged]).code).toBe(0);
  });
});
