// Packs the published packages the way `pnpm publish` would (publishConfig applied,
// `workspace:*` replaced by versions) into one folder. Used by the package checks
// (scripts/check-packages.mjs) and the consumer tests (tests/consumer/).
// Builds nothing: run `pnpm build` first.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The published packages, by folder under packages/. */
export const PACKAGES = ['core', 'web'];

/**
 * `pnpm pack` every published package into `dest`.
 * @param {string} dest folder for the tarballs (created if missing)
 * @returns {Record<string, string>} package name → tarball path
 */
export function packPackages(dest) {
  mkdirSync(dest, { recursive: true });
  const tarballs = {};
  for (const dir of PACKAGES) {
    const cwd = join(ROOT, 'packages', dir);
    const { name, version } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
    if (!existsSync(join(cwd, 'dist', 'index.js')))
      throw new Error(`packages/${dir}/dist is missing: run \`pnpm build\` first`);
    execFileSync('pnpm', ['pack', '--pack-destination', dest], {
      cwd,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const file = join(dest, `${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
    if (!existsSync(file)) throw new Error(`pnpm pack wrote no ${file}`);
    tarballs[name] = file;
  }
  return tarballs;
}
