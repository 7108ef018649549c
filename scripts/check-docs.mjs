#!/usr/bin/env node
// Docs that compile: typechecks every ```ts / ```typescript block of README.md and
// docs/*.md and packages/*/README.md, and every `@example` block of the packages' doc
// comments (packages/*/src/**/*.ts, see scripts/tsdoc-examples.mjs), against the
// packages' public entry points, in one `tsc --noEmit` program.
// Run: `node scripts/check-docs.mjs [file.md | file.ts ...]` (default: all).
//
// Each block becomes its own module in .docs-check/ (gitignored, rewritten on
// every run; look there to see what was compiled). Blocks are modules, so they
// use `import` and top-level `await` like app code, and may repeat names.
//
// Conventions, written as HTML comments right before the block's fence (blank
// lines between are fine; several comments may be stacked):
//   <!-- prelude: declare const loader: DataLoader<Sample>; -->
//       TypeScript put before the block: declarations (and imports) of the few
//       free variables it uses, e.g. things an earlier block made. It may span
//       lines. It is not shown by markdown renderers.
//   <!-- docs-check: skip (reason) -->
//       do not compile this block; for deliberate fragments only, say why.
// Other fences (sh, json, untagged) are not checked.
//
// Failures print as `file.md:line:col TSxxxx message` with the offending line,
// where line is the markdown line (or the prelude comment's line).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleBlocks, withMissing } from './tsdoc-examples.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, '.docs-check');
const TS_LANGS = new Set(['ts', 'typescript']);

const args = process.argv.slice(2).map((a) => relative(root, join(process.cwd(), a)));

/** Markdown files to check: the arguments, else README.md, docs/*.md and each package's README.md. */
function markdownFiles() {
  if (args.length) return args.filter((a) => a.endsWith('.md'));
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  const packages = readdirSync(join(root, 'packages'))
    .sort()
    .map((p) => `packages/${p}/README.md`)
    .filter((f) => existsSync(join(root, f)));
  return ['README.md', ...docs, ...packages];
}

/**
 * The HTML comments directly above line `fence` (0-based), nearest last:
 * `{ text, line }` with the comment's inner text and its 1-based first line.
 */
function commentsAbove(lines, fence) {
  const found = [];
  let i = fence - 1;
  for (;;) {
    while (i >= 0 && lines[i].trim() === '') i--;
    if (i < 0 || !lines[i].trimEnd().endsWith('-->')) break;
    let start = i;
    while (start >= 0 && !lines[start].includes('<!--')) start--;
    if (start < 0) break;
    const raw = lines.slice(start, i + 1).join('\n');
    const text = raw.slice(raw.indexOf('<!--') + 4, raw.lastIndexOf('-->')).trim();
    found.unshift({ text, line: start + 1 });
    i = start - 1;
  }
  return found;
}

/** Every TypeScript block of one markdown file. */
function blocksOf(file) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].trim().startsWith(fence)) end++;
    if (TS_LANGS.has(lang.toLowerCase())) {
      const code = lines
        .slice(i + 1, end)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()));
      const block = { file, line: i + 1, code, prelude: [], preludeLine: 0, skip: undefined };
      for (const c of commentsAbove(lines, i)) {
        const prelude = /^prelude:\s*([\s\S]*)$/.exec(c.text);
        const skip = /^docs-check:\s*skip\b\s*([\s\S]*)$/.exec(c.text);
        if (prelude) {
          block.prelude = prelude[1].split('\n');
          block.preludeLine = c.line;
        } else if (skip) block.skip = skip[1].replace(/^[-—:(\s]+|[)\s]+$/g, '') || '(no reason)';
      }
      blocks.push(block);
    }
    i = end;
  }
  return blocks;
}

/** Module file name of a block, e.g. `docs_persistence.md_L12.ts`. */
function moduleName(block) {
  return `${block.file.replace(/[\\/]/g, '_')}_L${block.line}.ts`;
}

const TSCONFIG = {
  extends: '../tsconfig.base.json',
  compilerOptions: {
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: ['@webgpu/types', 'node'],
    moduleDetection: 'force',
    // Plain `strict`, as in most apps: `batch.label.shape` without `!`.
    noUncheckedIndexedAccess: false,
    noUnusedLocals: false,
    noUnusedParameters: false,
    noEmit: true,
  },
  include: ['*.ts'],
};

const markdown = markdownFiles();
const examples = exampleBlocks(root).filter((b) => (args.length ? args.includes(b.file) : true));
const files = [...markdown, ...new Set(examples.map((b) => b.file))];
const blocks = [...markdown.flatMap(blocksOf), ...examples];
const checked = blocks.filter((b) => b.skip === undefined);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
const byModule = new Map();
function writeModule(b) {
  const name = moduleName(b);
  byModule.set(name, b);
  const head = `// ${b.file}:${b.line}${b.prelude.length ? ` (prelude from line ${b.preludeLine})` : ''}`;
  // Line 1 is the head; the prelude follows, then the block.
  writeFileSync(join(outDir, name), [head, ...b.prelude, ...b.code, ''].join('\n'));
}
for (const b of checked) writeModule(b);

const tsc = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'tsc.cmd' : 'tsc');
if (!existsSync(tsc)) {
  console.error(`docs-check: ${tsc} is missing; run pnpm install`);
  process.exit(2);
}
function compile() {
  const r = spawnSync(tsc, ['--noEmit', '--pretty', 'false', '-p', join(outDir, 'tsconfig.json')], {
    cwd: root,
    encoding: 'utf8',
  });
  return { run: r, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
let { run, output } = compile();

// TSDoc examples get their prelude from what tsc could not find (tsdoc-examples.mjs), then compile again.
const missing = new Map();
for (const line of output.split('\n')) {
  const m =
    /^(.*?)\(\d+,\d+\): error TS(?:2304|2552|2503|18004): (?:Cannot find (?:name|namespace)|No value exists in scope for the shorthand property) '([\w$]+)'/.exec(
      line,
    );
  const block = m && byModule.get(m[1].split(/[\\/]/).pop());
  if (!block?.tsdoc) continue;
  if (!missing.has(block)) missing.set(block, new Set());
  missing.get(block).add(m[2]);
}
if (missing.size > 0) {
  for (const [b, names] of missing) {
    b.prelude = withMissing(root, b, names);
    writeModule(b);
  }
  ({ run, output } = compile());
}

/** Where a diagnostic in a block module points in the markdown. */
function locate(block, tsLine) {
  const codeLine = tsLine - 1 - block.prelude.length; // 1-based line within the block
  if (codeLine >= 1)
    return { at: block.line + codeLine + (block.codeOffset ?? 0), text: block.code[codeLine - 1] };
  return { at: block.preludeLine + tsLine - 2, text: block.prelude[tsLine - 2], inPrelude: true };
}

/** Diagnostics per block (document order), and those outside any block. */
const perBlock = new Map();
const elsewhere = [];
let last;
const diagnostic = /^(.*?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
for (const line of output.split('\n')) {
  const m = diagnostic.exec(line);
  if (!m) {
    // Continuation lines of the previous message (chained diagnostics).
    if (line.trim() && last) last.more.push(line.trim());
    continue;
  }
  const [, path, l, col, code, message] = m;
  const block = path.includes('.docs-check') ? byModule.get(path.split(/[\\/]/).pop()) : undefined;
  if (!block) {
    last = { text: `${path}:${l}:${col} ${code} ${message}`, more: [] };
    elsewhere.push(last);
    continue;
  }
  const { at, text, inPrelude } = locate(block, Number(l));
  last = {
    at,
    col: Number(col),
    text: `${block.file}:${at}:${col} ${code} ${message}${inPrelude ? ' (in the prelude)' : ''}`,
    source: text,
    more: [],
  };
  if (!perBlock.has(block)) perBlock.set(block, []);
  perBlock.get(block).push(last);
}

for (const b of blocks.filter((x) => x.skip !== undefined))
  console.log(`skipped ${b.file}:${b.line}: ${b.skip}`);
const print = (d) => {
  console.log(`  ${d.text}`);
  for (const m of d.more) console.log(`      ${m}`);
  if (d.source !== undefined) console.log(`      | ${d.source.trim()}`);
};
for (const b of checked) {
  const ds = perBlock.get(b);
  if (!ds) continue;
  ds.sort((x, y) => x.at - y.at || x.col - y.col);
  console.log(
    `\n${b.file}:${b.line}: block fails (${ds.length} error${ds.length > 1 ? 's' : ''}), compiled as ${relative(root, outDir)}/${moduleName(b)}`,
  );
  for (const d of ds) print(d);
}
if (elsewhere.length) {
  console.log('\noutside the blocks:');
  for (const d of elsewhere) print(d);
}
if (run.status !== 0 && perBlock.size === 0 && elsewhere.length === 0)
  console.log(output.trim() || `tsc exited with ${run.status}`);
console.log(
  `\ndocs-check: ${blocks.length} TypeScript blocks (${examples.length} of them @example) in ${files.length} files, ` +
    `${blocks.length - checked.length} skipped, ${perBlock.size} failing`,
);
process.exit(run.status === 0 ? 0 : 1);
