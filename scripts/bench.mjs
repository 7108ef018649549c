#!/usr/bin/env node
// `pnpm bench <name> [args]` runs bench/<name>.ts (Node benchmarks) with tsx.
// Browser benchmarks are .ts files too: they drive Chromium with Playwright themselves.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const [name, ...args] = process.argv.slice(2);
const available = readdirSync('bench')
  .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
  .map((f) => f.slice(0, -3));
if (!name || !existsSync(`bench/${name}.ts`)) {
  console.error(`usage: pnpm bench <${available.join('|')}> [args]`);
  process.exit(2);
}
const r = spawnSync('tsx', ['--conditions=@medfusion/source', `bench/${name}.ts`, ...args], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
