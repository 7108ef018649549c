#!/usr/bin/env node
// The stress harness (tests/stress/, docs/browser-support.md "Stress harness"): the demo's
// pipeline in a training worker and a plain DataLoader epoch in a worker, many runs in Chromium,
// Firefox and WebKitGTK while stress-ng keeps the cores busy; prints each stall with what every
// thread last did, and a table at the end. On a shared machine run it under the heavy lock:
//   flock /tmp/heavy.lock node scripts/stress.mjs --runs 10
// Options: node scripts/stress.mjs --help
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', join(root, 'tests', 'stress', 'main.ts'), ...process.argv.slice(2)],
  { stdio: 'inherit', cwd: root },
);
process.exit(r.status ?? 1);
