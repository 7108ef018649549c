#!/usr/bin/env node
// `node scripts/check-glossary.mjs`: docs/glossary.md against the packages' public API
// (run by tests/packaging/glossary.test.ts, so by `npm test`). Fails when
//  - a name the glossary lists (a backticked name in a table's term or API-names column,
//    before "Renamed in 0.2", which lists old names on purpose) is not exported by an
//    entry point, nor a member of an exported type or class, nor one of an exported
//    string union's values (error codes); `X.y` needs `y` to be a member of export `X`;
//  - a field of a public options type (an exported `…Options`) appears nowhere in it;
//  - a term is defined by two rows (the first column, split at commas).
// The API is read from the packages' sources (their explicit export lists) with the
// TypeScript compiler API that API Extractor brings (the repository's TypeScript 7 has
// none): no build needed, a few seconds. `--glossary <file>` checks another file (tests).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The public entry points, by import path. */
export const ENTRY_POINTS = {
  '@medfusion/core': 'packages/core/src/index.ts',
  '@medfusion/web': 'packages/web/src/index.ts',
  '@medfusion/web/tfjs': 'packages/web/src/tfjs.ts',
  '@medfusion/web/webgpu': 'packages/web/src/webgpu.ts',
  '@medfusion/web/dicom': 'packages/web/src/dicom.ts',
  '@medfusion/node': 'packages/node/src/index.ts',
};

/**
 * What the entry points export: `exports` (name → member names), `values`
 * (string-literal members of exported unions, e.g. error codes) and `options`
 * (exported `…Options` type → its field names, inherited ones included).
 */
export function publicApi() {
  const require = createRequire(join(root, 'package.json'));
  const ts = createRequire(require.resolve('@microsoft/api-extractor'))('typescript');
  const files = Object.values(ENTRY_POINTS).map((f) => join(root, f));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ['@medfusion/source'],
    lib: [
      'lib.es2022.d.ts',
      'lib.dom.d.ts',
      'lib.dom.iterable.d.ts',
      'lib.webworker.importscripts.d.ts',
    ],
    types: ['@webgpu/types'],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const exports = new Map();
  const values = new Set();
  const options = new Map();
  const propsOf = (type) => {
    const parts = type.isUnion?.() ? type.types : [type];
    return parts.flatMap((t) => checker.getPropertiesOfType(t).map((p) => p.getName()));
  };
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (!sf) throw new Error(`cannot read ${file}`);
    for (const sym of checker.getExportsOfModule(checker.getSymbolAtLocation(sf))) {
      const name = sym.getName();
      const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      const members = new Set(exports.get(name) ?? []);
      if (
        target.flags &
        (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias)
      ) {
        const type = checker.getDeclaredTypeOfSymbol(target);
        for (const p of propsOf(type)) members.add(p);
        const parts = type.isUnion?.() ? type.types : [type];
        for (const t of parts) if (t.isStringLiteral?.()) values.add(t.value);
        if (/Options$/.test(name)) options.set(name, propsOf(type));
      }
      if (target.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Value)) {
        const decl = target.valueDeclaration;
        if (decl) {
          for (const p of checker.getPropertiesOfType(
            checker.getTypeOfSymbolAtLocation(target, decl),
          ))
            if (p.getName() !== 'prototype') members.add(p.getName());
        }
      }
      exports.set(name, members);
    }
  }
  return { exports, values, options };
}

/** The checked part of the glossary: everything before "Renamed in 0.2". */
function checkedPart(text) {
  const end = text.indexOf('\n## Renamed in 0.2');
  return end < 0 ? text : text.slice(0, end);
}

/** Backticked names of the tables' term (first) and API names (last) columns, with their line. */
export function listedNames(text) {
  const out = [];
  const lines = checkedPart(text).split('\n');
  lines.forEach((line, i) => {
    if (!line.startsWith('|') || /^\|\s*-/.test(line) || /^\|\s*term\s*\|/.test(line)) return;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1);
    for (const cell of [cells[0], cells[cells.length - 1]]) {
      for (const m of (cell ?? '').matchAll(/`([^`]+)`/g)) {
        const id = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?/.exec(m[1]);
        if (id) out.push({ name: id[0], line: i + 1 });
      }
    }
  });
  return out;
}

/** Every identifier the glossary writes in backticks, anywhere (for the options check). */
function mentionedNames(text) {
  const names = new Set();
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    for (const id of m[1].matchAll(/[A-Za-z_$][\w$]*/g)) names.add(id[0]);
  }
  return names;
}

/** The problems of `text` (a glossary) against `api`: one line each. */
export function glossaryProblems(text, api = publicApi()) {
  const problems = [];
  const allMembers = new Set();
  for (const members of api.exports.values()) for (const m of members) allMembers.add(m);
  for (const { name, line } of listedNames(text)) {
    const [head, member] = name.split('.');
    if (member !== undefined) {
      if (!api.exports.has(head))
        problems.push(`glossary.md:${line}: \`${name}\`: ${head} is not exported`);
      else if (!api.exports.get(head).has(member))
        problems.push(`glossary.md:${line}: \`${name}\`: ${head} has no member ${member}`);
    } else if (!api.exports.has(name) && !allMembers.has(name) && !api.values.has(name)) {
      problems.push(
        `glossary.md:${line}: \`${name}\` is neither exported nor a member of an exported type`,
      );
    }
  }
  const terms = new Map();
  checkedPart(text)
    .split('\n')
    .forEach((line, i) => {
      if (!line.startsWith('|') || /^\|\s*-/.test(line) || /^\|\s*term\s*\|/.test(line)) return;
      const cell = line.split(/(?<!\\)\|/)[1] ?? '';
      for (const t of cell.split(/,|\(|\)/)) {
        const term = t.replace(/`/g, '').trim().toLowerCase();
        if (term === '') continue;
        if (terms.has(term))
          problems.push(
            `glossary.md:${i + 1}: "${term}" is defined twice (also line ${terms.get(term)})`,
          );
        else terms.set(term, i + 1);
      }
    });
  const mentioned = mentionedNames(checkedPart(text));
  for (const [type, fields] of api.options) {
    for (const field of fields) {
      if (!mentioned.has(field))
        problems.push(`glossary.md: option \`${field}\` of ${type} is not in the glossary`);
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--glossary');
  const file = at > 0 ? process.argv[at + 1] : join(root, 'docs', 'glossary.md');
  const problems = glossaryProblems(readFileSync(file, 'utf8'));
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`\n${problems.length} glossary problems (docs/glossary.md)`);
    process.exit(1);
  }
  console.log('glossary: every listed name exists, every public option is in it');
}
