#!/usr/bin/env node
// tsc --noEmit for every package and for the tests/demo; exits non-zero if any fails.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const projects = [
  'packages/core',
  'packages/web',
  'packages/node',
  'packages/cli',
  'demo',
  'tests',
  'bench',
].filter((p) => existsSync(`${p}/tsconfig.json`));
let failed = 0;
for (const p of projects) {
  const r = spawnSync('tsc', ['--noEmit', '-p', `${p}/tsconfig.json`], {
    stdio: 'inherit',
    shell: false,
  });
  console.log(`tsc ${p}: ${r.status === 0 ? 'ok' : 'FAILED'}`);
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
