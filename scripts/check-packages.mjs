#!/usr/bin/env node
// Types as a consumer gets them: packs each published package (scripts/pack.mjs,
// publishConfig applied as `pnpm publish` would) and runs @arethetypeswrong/cli on
// the tarball for every public subpath (publicSubpaths: the workspace `exports`
// and each `@medfusion/<p>/<sub>` the docs name, e.g. "@medfusion/web/dicom"), so
// a subpath missing from the published `exports` or `typesVersions` fails under
// node10, node16 (CJS and ESM) or bundler resolution. The packed package.json is
// checked too (manifestProblems: types first, no workspace-only condition).
// The packages are ESM only, on purpose: a CommonJS caller uses `await import()`,
// so the one rule ignored is `cjs-resolves-to-esm` (attw's "ESM (dynamic import
// only)" note). Run after `pnpm build`: `node scripts/check-packages.mjs`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { manifestProblems, packPackages, publicSubpaths, ROOT } from './pack.mjs';

/** Unpack `tarball` into `dir`; count (and print) source-map sources it does not ship. */
function missingMapSources(tarball, dir) {
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const pkg = join(dir, 'package');
  let missing = 0;
  let maps = 0;
  for (const entry of readdirSync(pkg, { recursive: true })) {
    if (!String(entry).endsWith('.map')) continue;
    maps++;
    const map = join(pkg, String(entry));
    const { sources = [], sourceRoot = '' } = JSON.parse(readFileSync(map, 'utf8'));
    for (const source of sources) {
      const file = resolve(dirname(map), sourceRoot, source);
      if (!file.startsWith(pkg) || !existsSync(file)) {
        console.error(`${relative(pkg, map)}: source ${source} is not in the tarball`);
        missing++;
      }
    }
  }
  console.log(`source maps: ${maps} checked, ${missing} pointing outside the tarball`);
  return missing ? 1 : 0;
}

/** Print the problems of the unpacked package.json in `dir` for `subpaths`; 1 if any. */
function manifestFailures(dir, subpaths) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package', 'package.json'), 'utf8'));
  const problems = manifestProblems(manifest, subpaths);
  for (const p of problems) console.error(p);
  console.log(`package.json: ${subpaths.join(', ')}: ${problems.length} problems`);
  return problems.length ? 1 : 0;
}

const dest = mkdtempSync(join(tmpdir(), 'medfusion-attw-'));
let failed = 0;
try {
  const subpaths = publicSubpaths();
  for (const [name, tarball] of Object.entries(packPackages(dest))) {
    const entrypoints = subpaths[name] ?? ['.'];
    console.log(`attw ${name} (${entrypoints.join(', ')})`);
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
        '--entrypoints',
        ...entrypoints,
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    if (r.status !== 0) failed++;
    const unpacked = join(dest, name.replace('/', '+'));
    failed += missingMapSources(tarball, unpacked);
    failed += manifestFailures(unpacked, entrypoints);
  }
} finally {
  rmSync(dest, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
