// `--part` must be i/n with 1 <= i <= n: anything else is refused before any
// work (exit 2), naming the value.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './cliHelpers.js';
import { csvInput } from './partsHelpers.js';

describe('medfusion pack --part rejects bad values', () => {
  const input = csvInput(4);
  for (const value of ['0/2', '3/2', 'a/b', '1/0', '2', '1/2/3']) {
    it(`--part ${value}`, () => {
      const out = join(tempDir(), 'out');
      const r = runCli(['pack', input, '--out', out, '--part', value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--part must be i/n with 1 <= i <= n`);
      expect(r.stderr).toContain(`got ${JSON.stringify(value)}`);
      expect(existsSync(out)).toBe(false);
    });
  }
});
