// The `@example` blocks of the packages' doc comments (packages/*/src/**/*.ts), as
// blocks for scripts/check-docs.mjs, which compiles them like the docs' snippets.
//
// A block is the text after `@example` up to the next tag or the comment's end (a
// ``` fence inside is dropped). A block on a field (an option's value, e.g.
// `{ center: 40, width: 400 }`) is compiled as an expression. Like app code, a block
// uses the public entry points only; it need not write their imports, nor declare the
// reader's own variables (`url`, `signal`, `model`): {@link autoPrelude} makes its
// prelude from the names tsc cannot find — an import from the entry point that
// exports the name (the file's own package first), else `declare const x: any`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Entry points in the order a missing name is looked up; the file's own package first. */
const ENTRIES = [
  { path: '@medfusion/core', file: 'packages/core/src/index.ts', pkg: 'core' },
  { path: '@medfusion/web', file: 'packages/web/src/index.ts', pkg: 'web' },
  { path: '@medfusion/web/tfjs', file: 'packages/web/src/tfjs.ts', pkg: 'web' },
  { path: '@medfusion/web/webgpu', file: 'packages/web/src/webgpu.ts', pkg: 'web' },
  { path: '@medfusion/web/dicom', file: 'packages/web/src/dicom.ts', pkg: 'web' },
  { path: '@medfusion/node', file: 'packages/node/src/index.ts', pkg: 'node' },
  // last: helpers of MedFusion's own packages, for the examples of those helpers
  { path: '@medfusion/core/internal', file: 'packages/core/src/internal.ts', pkg: 'core' },
];

/**
 * Examples known not to compile, skipped with the reason (printed by check-docs):
 * the file and the start of the example's first line, so an edited example is
 * compiled again. Keep this empty; an entry is a debt with its owner named.
 */
const KNOWN_FAILING = [];

/** Names each entry point exports (their explicit export lists). */
function exportsOf(root) {
  const out = [];
  for (const e of ENTRIES) {
    const text = readFileSync(join(root, e.file), 'utf8');
    // name → whether it is exported as a type only (imported with `type`)
    const names = new Map();
    for (const m of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
      for (const part of m[2].split(',')) {
        const typeOnly = m[1] !== undefined || /^\s*type\s/.test(part);
        const name = part
          .replace(/^\s*type\s+/, '')
          .split(/\s+as\s+/)
          .pop()
          .trim();
        if (name) names.set(name, typeOnly);
      }
    }
    out.push({ ...e, names });
  }
  return out;
}

function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts') && !d.name.endsWith('.d.ts'))
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

/** Every `@example` block of packages/*\/src, as check-docs blocks (`file` relative to `root`). */
export function exampleBlocks(root) {
  const entries = exportsOf(root);
  const blocks = [];
  for (const pkg of readdirSync(join(root, 'packages')).sort()) {
    let files;
    try {
      files = tsFiles(join(root, 'packages', pkg, 'src'));
    } catch {
      continue;
    }
    for (const path of files) {
      const file = relative(root, path);
      const lines = readFileSync(path, 'utf8').split('\n');
      for (let i = 0; i < lines.length; i++) {
        const at = lines[i].indexOf('@example');
        if (at < 0 || !/^\s*(\/\*\*|\*)/.test(lines[i])) continue;
        const code = [];
        const first = lines[i].slice(at + '@example'.length).replace(/\*\/\s*$/, '');
        if (first.trim()) code.push(first.trim());
        let j = i;
        let end = lines[i].includes('*/');
        while (!end && ++j < lines.length) {
          const line = lines[j];
          if (/^\s*\*\//.test(line)) break;
          end = line.includes('*/');
          const text = line.replace(/^\s*\*? ?/, '').replace(/\*\/\s*$/, '');
          if (/^\s*@\w/.test(text)) break;
          code.push(text);
        }
        while (code.length && code[code.length - 1].trim() === '') code.pop();
        const body = code.filter((l) => !/^\s*```/.test(l));
        // The line after the comment: a field (`name?: type`) takes an expression.
        let k = j;
        while (k < lines.length && !lines[k].includes('*/')) k++;
        const field = /^\s+(?:readonly\s+)?([\w$]+)\??:/.exec(lines[k + 1] ?? '')?.[1];
        const wrapped = field === undefined ? body : fieldExample(lines, i, field, body);
        blocks.push({
          file,
          line: i + 1,
          code: wrapped,
          codeOffset: field === undefined ? 0 : -1,
          prelude: [],
          preludeLine: i + 1,
          skip: undefined,
          pkg,
          tsdoc: true,
        });
        const block = blocks[blocks.length - 1];
        const known = KNOWN_FAILING.find(
          (k) => k.file === file && (body[0] ?? '').trim().startsWith(k.starts),
        );
        if (known) block.skip = known.reason;
        block.prelude = autoPrelude(entries, block, usedExports(entries, wrapped));
        i = j;
      }
    }
  }
  return blocks;
}

/**
 * The interface a field at line `at` belongs to, written with `any` for each
 * type parameter (`DataLoaderOptions<any, any>`), or undefined.
 */
function ownerOf(lines, at) {
  for (let i = at; i >= 0; i--) {
    if (/^}/.test(lines[i])) return undefined;
    const m = /^export interface ([\w$]+)(<?)/.exec(lines[i]);
    if (!m) continue;
    if (!m[2]) return m[1];
    // count the type parameters: commas at depth 1 of the <...> after the name
    const text = lines.slice(i, i + 5).join(' ');
    let depth = 0;
    let params = 1;
    for (const c of text.slice(text.indexOf('<'))) {
      if (c === '<' || c === '(' || c === '[' || c === '{') depth++;
      else if (c === '>' || c === ')' || c === ']' || c === '}') {
        if (--depth === 0) break;
      } else if (c === ',' && depth === 1) params++;
    }
    return `${m[1]}<${Array(params).fill('any').join(', ')}>`;
  }
  return undefined;
}

/**
 * An option field's example as a module: typed by the field when its interface
 * is known (`{ key: value }` examples as part of the options object), else an
 * expression statement.
 */
function fieldExample(lines, at, field, body) {
  const firstCode = body.find((l) => l.trim() !== '' && !l.trim().startsWith('//')) ?? '';
  const keyValue = new RegExp(`^\\s*${field.replace(/\$/g, '\\$')}\\s*:`).test(firstCode);
  // `{ field: value }`: the example shows the field inside its options object
  const inObject = new RegExp(`^\\s*\\{\\s*${field.replace(/\$/g, '\\$')}\\s*:`).test(firstCode);
  const owner = ownerOf(lines, at);
  if (owner === undefined)
    return keyValue ? ['void ({', ...body, '});'] : ['void (', ...body, ');'];
  if (keyValue) return [`export const example: Partial<${owner}> = {`, ...body, '};'];
  const type = inObject ? `Partial<${owner}>` : `${owner}['${field}']`;
  return [`export const example: ${type} = (`, ...body, ');'];
}

/** Names of `code` that some entry point exports, minus those the code declares itself. */
function usedExports(entries, code) {
  const text = code
    .join('\n')
    .replace(/\/\/.*$/gm, '')
    .replace(/(['"`])(?:\\.|(?!\1).)*\1/g, '""');
  const declared = new Set();
  for (const m of text.matchAll(/\b(?:const|let|var|function|class|type|interface)\s+([\w$]+)/g))
    declared.add(m[1]);
  for (const m of text.matchAll(/\b(?:const|let|var)\s*[{[]([^}\]=]*)[}\]]\s*=/g)) {
    for (const id of m[1].matchAll(/(?:^|[,:\s])([\w$]+)\s*(?=,|$|=)/g)) declared.add(id[1]);
  }
  for (const m of text.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1].split(',')) {
      const name = part
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        .trim();
      if (name) declared.add(name);
    }
  }
  const used = new Set();
  for (const m of text.matchAll(/(?<![.\w$])([A-Za-z_$][\w$]*)/g)) {
    if (!declared.has(m[1]) && entries.some((e) => e.names.has(m[1]))) used.add(m[1]);
  }
  return used;
}

/** Re-make the prelude of `block` with `missing`, the names tsc could not find in it. */
export function withMissing(root, block, missing) {
  const entries = exportsOf(root);
  return autoPrelude(entries, block, new Set([...usedExports(entries, block.code), ...missing]));
}

/**
 * The prelude of a TSDoc example from `names`, the names it needs from
 * outside: each is imported from the entry point that exports it, the block's
 * own package first, else declared as the reader's own (`any`).
 */
function autoPrelude(entries, block, names) {
  const missing = names;
  const order = [
    ...entries.filter((e) => e.pkg === block.pkg && !e.path.endsWith('/internal')),
    ...entries.filter((e) => e.pkg !== block.pkg && !e.path.endsWith('/internal')),
    ...entries.filter((e) => e.path.endsWith('/internal')),
  ];
  const imports = new Map();
  const declared = [];
  for (const name of [...missing].sort()) {
    const from = order.find((e) => e.names.has(name));
    if (from) {
      if (!imports.has(from.path)) imports.set(from.path, []);
      imports.get(from.path).push(from.names.get(name) ? `type ${name}` : name);
    } else declared.push(`declare const ${name}: any; type ${name} = any;`);
  }
  const lines = [...imports].map(
    ([path, names]) => `import { ${names.join(', ')} } from '${path}';`,
  );
  return [...lines, ...declared];
}
