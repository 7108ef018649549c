#!/usr/bin/env node
// `pnpm docs:api`: the API reference, generated from the doc comments of the
// published entry points into .api-docs/ (gitignored): .api-docs/markdown/index.md.
// `node scripts/api-docs.mjs --check` (part of `npm test`) only extracts and fails
// when an exported symbol or one of its members has no doc comment.
//
// Why API Extractor and not TypeDoc: TypeDoc 0.28 runs on the TypeScript
// compiler API of TypeScript 5.0–6.0, and this repository compiles with
// TypeScript 7, whose package no longer ships that API. API Extractor brings
// its own TypeScript and reads our built declarations (dist/*.d.ts), which is
// exactly what a consumer sees. Run `pnpm build` first.
//
// Entry points documented: @medfusion/core, @medfusion/web, @medfusion/web/tfjs,
// @medfusion/web/webgpu (@medfusion/core/internal is not public API).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, '.api-docs');
const check = process.argv.includes('--check');

/** Published entry points: package folder, declaration file, model name. */
const ENTRIES = [
  { pkg: 'core', dts: 'index.d.ts', model: 'core', subpath: '' },
  { pkg: 'web', dts: 'index.d.ts', model: 'web', subpath: '' },
  { pkg: 'web', dts: 'tfjs.d.ts', model: 'web-tfjs', subpath: '/tfjs' },
  { pkg: 'web', dts: 'webgpu.d.ts', model: 'web-webgpu', subpath: '/webgpu' },
  { pkg: 'node', dts: 'index.d.ts', model: 'node', subpath: '' },
];

// API Extractor is a devDependency of the root; load it from there.
const require = createRequire(join(root, 'package.json'));
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');
// TSDoc, plus the `@default` tag our comments use (scripts/tsdoc.json).
const { TSDocConfigFile } = createRequire(require.resolve('@microsoft/api-extractor'))(
  '@microsoft/tsdoc-config',
);
const tsdocConfigFile = TSDocConfigFile.loadFile(join(root, 'scripts', 'tsdoc.json'));

rmSync(out, { recursive: true, force: true });
for (const dir of ['model', 'report', 'report-temp'])
  mkdirSync(join(out, dir), { recursive: true });

let undocumented = 0;
let errors = 0;
for (const entry of ENTRIES) {
  const projectFolder = join(root, 'packages', entry.pkg);
  const dts = join(projectFolder, 'dist', entry.dts);
  if (!existsSync(dts)) {
    console.error(`${relative(root, dts)} is missing: run \`pnpm build\` first`);
    process.exit(1);
  }
  const config = ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    tsdocConfigFile,
    packageJsonFullPath: join(projectFolder, 'package.json'),
    configObject: {
      projectFolder,
      mainEntryPointFilePath: dts,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'bundler',
            lib: ['ES2022', 'DOM', 'DOM.Iterable'],
            types: entry.pkg === 'web' ? ['@webgpu/types'] : [],
            strict: true,
            skipLibCheck: true,
          },
          files: [dts],
        },
      },
      // The report is not kept: API Extractor raises ae-undocumented while writing it.
      apiReport: {
        enabled: true,
        reportFileName: `${entry.model}.api.md`,
        reportFolder: join(out, 'report'),
        reportTempFolder: join(out, 'report-temp'),
      },
      docModel: { enabled: true, apiJsonFilePath: join(out, 'model', `${entry.model}.api.json`) },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          'ae-undocumented': { logLevel: 'warning' },
          // no @public/@beta tags: everything exported is public
          'ae-missing-release-tag': { logLevel: 'none' },
          // TSDoc resolves {@link x} only against the entry's exports (not members in scope)
          'ae-unresolved-link': { logLevel: 'none' },
        },
        // TSDoc syntax nits (a bare `@` in prose, `{@link}` forms) do not fail the check
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  });
  const name = `@medfusion/${entry.pkg}${entry.subpath}`;
  const result = Extractor.invoke(config, {
    localBuild: true,
    showVerboseMessages: false,
    messageCallback(message) {
      // the report is regenerated on every run: "created"/"changed" notes are noise
      if (String(message.messageId).startsWith('console-api-report')) message.handled = true;
      else if (message.messageId === 'ae-undocumented') {
        undocumented++;
        const where = message.sourceFilePath
          ? `${relative(root, message.sourceFilePath)}:${message.sourceFileLine}`
          : name;
        console.error(`${where}: ${message.text}`);
        message.handled = true;
      } else if (message.logLevel === 'error') errors++;
    },
  });
  if (!result.succeeded && errors === 0) errors++;
  console.log(`api-extractor ${name}: ${result.succeeded ? 'ok' : 'FAILED'}`);
}

if (undocumented || errors) {
  console.error(`\n${undocumented} public symbols without a doc comment, ${errors} other errors`);
  process.exit(1);
}
if (check) process.exit(0);

// api-documenter knows one entry point per package: each subpath becomes a
// package of its own in the model (`@medfusion/web-tfjs`, a valid name), and its
// pages are given their import path back once written.
const subpaths = ENTRIES.filter((e) => e.subpath).map((e) => ({
  alias: `@medfusion/${e.model}`,
  path: `@medfusion/${e.pkg}${e.subpath}`,
  file: join(out, 'model', `${e.model}.api.json`),
}));
for (const s of subpaths) {
  const model = JSON.parse(readFileSync(s.file, 'utf8'));
  model.name = s.alias;
  writeFileSync(s.file, JSON.stringify(model));
}
const documenter = spawnSync(
  'pnpm',
  [
    'exec',
    'api-documenter',
    'markdown',
    '--input-folder',
    join(out, 'model'),
    '--output-folder',
    join(out, 'markdown'),
  ],
  { cwd: root, stdio: 'inherit' },
);
if (documenter.status !== 0) process.exit(documenter.status ?? 1);
for (const file of readdirSync(join(out, 'markdown'))) {
  const path = join(out, 'markdown', file);
  let text = readFileSync(path, 'utf8');
  for (const s of subpaths) text = text.replaceAll(s.alias, s.path);
  writeFileSync(path, text);
}
console.log(`API reference: ${relative(root, join(out, 'markdown', 'index.md'))}`);
