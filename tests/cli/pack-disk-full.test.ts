// The disk fills up mid-pack (a 256 kB tmpfs): exit 1 with a clear error naming the
// file, no manifest.json, no temporary file; once there is room, the same command
// continues from the complete shards. Needs root to mount the tmpfs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { png, runCli, tempDir, writeTree } from './cliHelpers.js';

const mountPoint = join(tempDir(), 'small');
mkdirSync(mountPoint);
const mounted =
  process.getuid?.() === 0 &&
  spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint]).status === 0;

afterAll(() => {
  if (mounted) spawnSync('umount', [mountPoint]);
});

describe('medfusion pack on a full disk', () => {
  it.skipIf(!mounted)(
    'fails naming the file, leaves no manifest and no temporary file, then resumes',
    () => {
      const input = tempDir();
      writeTree(
        input,
        Array.from(
          { length: 40 },
          (_, i) => [`c/${String(i).padStart(2, '0')}.png`, png(i, 96)] as [string, Uint8Array],
        ),
      );
      const out = join(mountPoint, 'out');
      const args = ['pack', input, '--out', out, '--samples-per-shard', '4'];
      const full = runCli(args);
      expect(full.code).toBe(1);
      expect(full.stderr).toMatch(
        new RegExp(`${out}/data-0000\\d\\d\\.tar(\\.idx\\.json)?: the disk is full \\(ENOSPC\\)`),
      );
      const names = readdirSync(out);
      expect(names).not.toContain('manifest.json');
      expect(names.filter((n) => n.endsWith('.partial'))).toEqual([]);
      const kept = names.filter((n) => n.endsWith('.tar')).length;
      expect(kept).toBeGreaterThan(0);
      expect(spawnSync('mount', ['-o', 'remount,size=4m', mountPoint]).status).toBe(0);
      const again = runCli(args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/resumed: \d+ shards kept/);
      expect(existsSync(join(out, 'manifest.json'))).toBe(true);
      expect(runCli(['verify', out]).code).toBe(0);
    },
  );
});
