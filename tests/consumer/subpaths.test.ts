// Issue 35, item 9: every subpath a consumer is told about exists in the
// packages as published. The list comes from the workspace `exports` and from
// every `@medfusion/<p>[/<sub>]` that README.md, docs/*.md and the packages'
// READMEs name (scripts/pack.mjs, publicSubpaths), so a new subpath cannot be
// left out of `publishConfig.exports` or `typesVersions` unnoticed. The
// tarballs are `pnpm pack`ed (publishConfig applied, as `pnpm publish` uploads
// them) and npm-installed into a fresh app, which must resolve each subpath in
// Node, in TypeScript (bundler and NodeNext) and in a Vite bundle that runs.
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

/** The app's page: imports each subpath whole and reports how many names each exports. */
function mainModule(): string {
  const imports = SPECIFIERS.map((s, i) => `import * as m${i} from '${s}';`);
  const entries = SPECIFIERS.map((s, i) => `  ['${s}', Object.keys(m${i}).length],`);
  return [
    ...imports,
    '',
    'const counts: [string, number][] = [',
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
    await writeFile(join(dir, 'src', 'main.ts'), mainModule());
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

  it('Node resolves and imports each one', async () => {
    const out = await run(dir, process.execPath, ['resolve.mjs', ...SPECIFIERS]);
    const resolved = JSON.parse(out.slice(out.lastIndexOf('\n{') + 1));
    for (const specifier of SPECIFIERS)
      expect(resolved[specifier], specifier).toEqual({
        file: expect.stringMatching(/^node_modules\/@medfusion\/(core|web)\/dist\/\w+\.js$/),
        exports: expect.any(Number),
      });
    for (const specifier of SPECIFIERS)
      expect(resolved[specifier].exports, specifier).toBeGreaterThan(0);
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
    expect(Object.keys(counts).sort()).toEqual([...SPECIFIERS].sort());
    for (const specifier of SPECIFIERS) expect(counts[specifier], specifier).toBeGreaterThan(0);
  });
});
