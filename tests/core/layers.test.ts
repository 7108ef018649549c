import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The folders of each package's src form layers (docs/contributing.md, "Layers"): a file may
// import from its own folder and from the folders listed before it, never from one after it.
// The package's entry points sit above every layer; the other files at the root of src form
// the layer named '(root)'. A folder missing here fails the test until it is given its place.

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Layering {
  /** The folders of src, lowest first. */
  order: string[];
  /** Root files that may import anything: the package's entry points. */
  entries: string[];
}

const packages: Record<string, Layering> = {
  core: {
    order: [
      '(root)',
      'util',
      'plan',
      'dataset',
      'remote',
      'shards',
      'cache',
      'persistence',
      'reliability',
      'engine',
      'augment',
      'loader',
      'diagnostics',
    ],
    entries: ['index.ts', 'internal.ts', 'internalTar.ts'],
  },
  web: {
    order: ['(root)', 'remote', 'workers', 'storage', 'sources', 'packing', 'webgpu', 'tfjs'],
    entries: ['index.ts', 'dicom.ts', 'tfjs.ts', 'webgpu.ts'],
  },
  node: {
    order: ['(root)', 'workers', 'storage'],
    entries: ['index.ts'],
  },
};

/** One import of a relative path, from one src file to another. */
interface Edge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(d.name) && !d.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative specifiers a file imports: `import`/`export … from`, bare `import '…'`, `import('…')`. */
function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const patterns = [
    /\b(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns
    .flatMap((re) => [...code.matchAll(re)].map((m) => m[1] as string))
    .filter((s) => s.startsWith('.'));
}

/** The folder of a src file: its first path segment under src, or '(root)'. */
function folderOf(src: string, file: string): string {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? (parts[0] as string) : '(root)';
}

function edgesOf(pkg: string, entries: string[]): Edge[] {
  const src = join(repo, 'packages', pkg, 'src');
  const edges: Edge[] = [];
  for (const file of sourceFiles(src)) {
    const rel = relative(src, file);
    if (entries.includes(rel)) continue;
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      const from = folderOf(src, file);
      const to = folderOf(src, target);
      if (from !== to) edges.push({ from, to, file: `${pkg}/src/${rel}`, specifier });
    }
  }
  return edges;
}

/** Folder circles (strongly connected components of more than one folder), Tarjan's algorithm. */
function circles(edges: Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)?.add(e.to);
  }
  const nodes = new Set(edges.flatMap((e) => [e.from, e.to]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

describe('the folders of each package form layers', () => {
  for (const [pkg, { order, entries }] of Object.entries(packages)) {
    const edges = edgesOf(pkg, entries);

    it(`${pkg}: every folder has its place in the declared order`, () => {
      const src = join(repo, 'packages', pkg, 'src');
      const folders = new Set(sourceFiles(src).map((f) => folderOf(src, f)));
      expect([...folders].filter((f) => !order.includes(f)).sort()).toEqual([]);
    });

    it(`${pkg}: no folder imports a folder above it`, () => {
      const upward = edges
        .filter((e) => order.indexOf(e.to) > order.indexOf(e.from))
        .map((e) => `${e.file} imports '${e.specifier}' (${e.from} -> ${e.to}, upward)`);
      expect(upward).toEqual([]);
    });

    it(`${pkg}: no two folders import each other, directly or in a circle`, () => {
      expect(circles(edges).map((c) => c.join(' <-> '))).toEqual([]);
    });
  }

  it('the scan sees every form of import', () => {
    const text = [
      "import { a } from './a.js';",
      "import type {\n  B,\n} from '../b/B.js';",
      "export { c } from '../c/c.js';",
      "export * from './d.js';",
      "import './e.js';",
      "const f = await import('../f/f.js');",
      "// import { g } from '../g/g.js';",
      "/** @example import { h } from '../h/h.js'; */",
      "import { i } from '@medfusion/core';",
    ].join('\n');
    expect(importsOf(text)).toEqual([
      './a.js',
      '../b/B.js',
      '../c/c.js',
      './d.js',
      './e.js',
      '../f/f.js',
    ]);
  });
});
