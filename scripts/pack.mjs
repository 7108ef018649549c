// Packs the published packages the way `pnpm publish` would (publishConfig applied,
// `workspace:*` replaced by versions) into one folder. Used by the package checks
// (scripts/check-packages.mjs) and the consumer tests (tests/consumer/).
// Builds nothing: run `pnpm build` first.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The published packages, by folder under packages/. */
export const PACKAGES = ['core', 'web', 'node'];

/** Packages published as a command (a `bin`, no import entry): packed, but no library checks. */
export const COMMANDS = ['cli'];

/**
 * `pnpm pack` every published package (or those of `dirs`) into `dest`.
 * @param {string} dest folder for the tarballs (created if missing)
 * @param {string[]} [dirs] folders under packages/ (default {@link PACKAGES})
 * @returns {Record<string, string>} package name → tarball path
 */
export function packPackages(dest, dirs = PACKAGES) {
  mkdirSync(dest, { recursive: true });
  const tarballs = {};
  for (const dir of dirs) {
    const cwd = join(ROOT, 'packages', dir);
    const { name, version, bin } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
    const entry = bin ? Object.values(bin)[0] : 'dist/index.js';
    if (!existsSync(join(cwd, entry)))
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

/** The docs whose text names import specifiers: README.md, docs/*.md, packages/<p>/README.md. */
function docFiles() {
  const docs = join(ROOT, 'docs');
  return [
    join(ROOT, 'README.md'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(docs, f)),
    ...PACKAGES.map((dir) => join(ROOT, 'packages', dir, 'README.md')),
  ].filter((f) => existsSync(f));
}

/**
 * Every subpath a consumer may import, by package name: each key of the
 * workspace `exports` but `./package.json`, and each `@medfusion/<p>[/<sub>]`
 * the docs name (so a subpath added to either cannot be left out of the
 * published manifest unnoticed). Subpaths as in `exports`: `.`, `./dicom`.
 * @returns {Record<string, string[]>} package name → sorted subpaths, `.` first
 */
export function publicSubpaths() {
  /** @type {Record<string, Set<string>>} */
  const found = {};
  for (const dir of PACKAGES) {
    const { name, exports } = JSON.parse(
      readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8'),
    );
    found[name] = new Set(Object.keys(exports).filter((k) => k !== './package.json'));
  }
  // `@medfusion/web/dicom` yes; `@medfusion/web/dist/x.js` and `@medfusion/source` no.
  const specifier = /@medfusion\/([a-z]+)(\/[a-z][a-z0-9-]*)?(?![\w/-])/g;
  for (const file of docFiles()) {
    for (const [, pkg, sub] of readFileSync(file, 'utf8').matchAll(specifier)) {
      const set = found[`@medfusion/${pkg}`];
      if (set) set.add(sub ? `.${sub}` : '.');
    }
  }
  return Object.fromEntries(
    Object.entries(found).map(([name, set]) => [
      name,
      [...set].sort((a, b) => (a === '.' ? -1 : b === '.' ? 1 : a.localeCompare(b))),
    ]),
  );
}

/**
 * What is wrong with a package.json as published (`pnpm pack`, publishConfig
 * applied) for `subpaths`: each one needs an `exports` entry with `types` first
 * and `default`, both under `dist/`, and (but `.`) a `typesVersions['*']` entry
 * to the same declarations for TypeScript's `moduleResolution: "node10"`; no
 * workspace-only `@medfusion/source` condition may be left.
 * @param {{ name: string, exports?: Record<string, unknown>, typesVersions?: Record<string, Record<string, string[]>> }} manifest
 * @param {string[]} subpaths as from {@link publicSubpaths}
 * @returns {string[]} one line per problem, empty when none
 */
export function manifestProblems(manifest, subpaths) {
  const problems = [];
  const { name, exports = {}, typesVersions = {} } = manifest;
  if (JSON.stringify(exports).includes('@medfusion/source'))
    problems.push(`${name}: exports still hold the workspace-only @medfusion/source condition`);
  for (const sub of subpaths) {
    const entry = /** @type {Record<string, unknown> | undefined} */ (exports[sub]);
    const types = entry?.types;
    if (typeof types !== 'string' || Object.keys(entry ?? {})[0] !== 'types')
      problems.push(`${name}: exports["${sub}"] has no "types" condition first`);
    if (typeof entry?.default !== 'string' || !String(entry.default).startsWith('./dist/'))
      problems.push(`${name}: exports["${sub}"] has no "default" under ./dist/`);
    if (sub === '.') continue;
    const key = sub.slice(2);
    const mapped = typesVersions['*']?.[key];
    if (!mapped) problems.push(`${name}: typesVersions["*"] has no "${key}"`);
    else if (typeof types === 'string' && mapped[0] !== types)
      problems.push(`${name}: typesVersions["*"]["${key}"] is ${mapped[0]}, exports say ${types}`);
  }
  return problems;
}
