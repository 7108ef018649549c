// Issue 35, item 9: every subpath a consumer is told about exists in the
// packages as published. The list comes from the workspace `exports` and from
// every `@medfusion/<p>[/<sub>]` that README.md, docs/*.md and the packages'
// READMEs name (scripts/pack.mjs, publicSubpaths), so a new subpath cannot be
// left out of `publishConfig.exports` or `typesVersions` unnoticed. The
// tarballs are `pnpm pack`ed (publishConfig applied, as `pnpm publish` uploads
// them) and npm-installed into a fresh app, which must resolve each subpath in
// Node, in TypeScript (bundler and NodeNext), in a Vite bundle that runs in
// Chromium and in a webpack 5 bundle (the tools of the other consumer apps).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { manifestProblems, publicSubpaths } from '../../scripts/pack.mjs';
import { installApp, openWithVite, run, typeErrorsOfOurs } from './consumerApp.js';

const SUBPATHS = publicSubpaths();
/** `@medfusion/web/dicom` for (`@medfusion/web`, `./dicom`). */
const SPECIFIERS = Object.entries(SUBPATHS).flatMap(([name, subs]) =>
  subs.map((sub) => (sub === '.' ? name : `${name}/${sub.slice(2)}`)),
);

/**
 * Subpaths that resolve in Node but do not load there yet, with the error they
 * give: a defect to fix in the package, listed so that the fix shows here (the
 * test fails once the import works: delete the entry then, and the note in
 * docs/dicom.md).
 */
const IMPORT_FAILS_IN_NODE: Record<string, RegExp> = {};

/** Packages for Node only (LMDB, worker_threads): resolved, imported and typechecked, never bundled for a page. */
const NODE_ONLY = new Set(['@medfusion/node']);
/** The subpaths a browser page imports. */
const PAGE_SPECIFIERS = SPECIFIERS.filter(
  (s) => !NODE_ONLY.has(s.split('/').slice(0, 2).join('/')),
);

/** The app's page (plain JS, for Vite, webpack and tsc's checkJs): imports each subpath whole and reports how many names each exports. */
function mainModule(): string {
  const imports = PAGE_SPECIFIERS.map((s, i) => `import * as m${i} from '${s}';`);
  const entries = PAGE_SPECIFIERS.map((s, i) => `  ['${s}', Object.keys(m${i}).length],`);
  return [
    ...imports,
    '',
    'const counts = [',
    ...entries,
    '];',
    'document.body.dataset.result = JSON.stringify(Object.fromEntries(counts));',
    '',
  ].join('\n');
}

describe('every documented subpath, in the tarballs as published', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await installApp('subpaths');
    await writeFile(join(dir, 'src', 'main.js'), mainModule());
  });

  it('takes its list from the docs and the exports', () => {
    expect(SPECIFIERS).toEqual(
      expect.arrayContaining([
        '@medfusion/core',
        '@medfusion/core/internal',
        '@medfusion/web',
        '@medfusion/web/tfjs',
        '@medfusion/web/webgpu',
        '@medfusion/web/dicom',
        '@medfusion/node',
      ]),
    );
  });

  it('the installed package.json files export each one, with typesVersions for node10', async () => {
    const problems: string[] = [];
    for (const [name, subs] of Object.entries(SUBPATHS)) {
      const manifest = join(dir, 'node_modules', name, 'package.json');
      problems.push(...manifestProblems(JSON.parse(await readFile(manifest, 'utf8')), subs));
    }
    expect(problems).toEqual([]);
  });

  it('Node resolves each one to a file of dist/, and imports it', async () => {
    const out = await run(dir, process.execPath, ['resolve.mjs', ...SPECIFIERS]);
    const found = JSON.parse(out.slice(out.lastIndexOf('\n{') + 1));
    for (const specifier of SPECIFIERS) {
      const known = IMPORT_FAILS_IN_NODE[specifier];
      expect(found[specifier], specifier).toEqual({
        file: expect.stringMatching(/^node_modules\/@medfusion\/(core|web|node)\/dist\/\w+\.js$/),
        ...(known
          ? { importError: expect.stringMatching(known) }
          : { exports: expect.any(Number) }),
      });
      if (!known) expect(found[specifier].exports, specifier).toBeGreaterThan(0);
    }
  });

  it('TypeScript finds the types of each one (bundler and NodeNext resolution)', async () => {
    expect(await typeErrorsOfOurs(dir)).toEqual([]);
    expect(await typeErrorsOfOurs(dir, 'tsconfig.nodenext.json')).toEqual([]);
  });

  it('Vite bundles each one, and the page runs in Chromium', async () => {
    await run(dir, 'node_modules/.bin/vite', ['build', '--logLevel', 'warn']);
    const report = await openWithVite(dir, 'preview');
    expect(report.error).toBeUndefined();
    expect(report.pageErrors).toEqual([]);
    const counts = report.result ?? {};
    expect(Object.keys(counts).sort()).toEqual([...PAGE_SPECIFIERS].sort());
    for (const specifier of PAGE_SPECIFIERS)
      expect(counts[specifier], specifier).toBeGreaterThan(0);
  });

  it('webpack 5 bundles each one', async () => {
    // development: resolution is the same, and minifying TF.js would triple the time
    const out = await run(dir, 'node_modules/.bin/webpack', ['--mode', 'development']);
    expect(out).toMatch(/compiled successfully/);
    expect(out).not.toMatch(/WARNING|ERROR/);
  });
});
