#!/usr/bin/env node
// Types as a consumer gets them: packs each published package (scripts/pack.mjs)
// and runs @arethetypeswrong/cli on the tarball, which resolves every entry point
// and subpath ("@medfusion/core", "/internal"; "@medfusion/web", "/tfjs",
// "/webgpu") under node10, node16 (CJS and ESM) and bundler resolution.
// The packages are ESM only, on purpose: a CommonJS caller uses `await import()`,
// so the one rule ignored is `cjs-resolves-to-esm` (attw's "ESM (dynamic import
// only)" note). Run after `pnpm build`: `node scripts/check-packages.mjs`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packPackages, ROOT } from './pack.mjs';

const dest = mkdtempSync(join(tmpdir(), 'medfusion-attw-'));
let failed = 0;
try {
  for (const [name, tarball] of Object.entries(packPackages(dest))) {
    console.log(`attw ${name}`);
    const r = spawnSync(
      'pnpm',
      [
        'exec',
        'attw',
        tarball,
        '--ignore-rules',
        'cjs-resolves-to-esm',
        '--format',
        'table-flipped',
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    if (r.status !== 0) failed++;
  }
} finally {
  rmSync(dest, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
