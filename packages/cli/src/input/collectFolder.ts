import type { Dirent } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { SampleTable } from './SampleTable.js';

/** Entries read from a folder between two yields to the event loop (Ctrl-C, progress). */
const ENTRIES_PER_TURN = 4096;

/**
 * The names in folder `dir` as they sort in the whole list: files by name,
 * folders with a `/` after it (a folder `a` as `a/`), hidden entries and other
 * kinds left out, sorted. Read one entry at a time (`opendir`): one short string
 * is held per entry, not a `Dirent` object (a folder of 100,000 files took the
 * resident size up by ~100 MB as `Dirent`s).
 */
async function sortedNames(dir: string): Promise<string[]> {
  const handle = await opendir(dir, { bufferSize: 1024 });
  const names: string[] = [];
  try {
    for (;;) {
      let e: Dirent | null = handle.readSync();
      for (let k = 0; e !== null; k++) {
        if (!e.name.startsWith('.')) {
          if (e.isDirectory()) names.push(`${e.name}/`);
          else if (e.isFile()) names.push(e.name);
        }
        if (k === ENTRIES_PER_TURN) break;
        e = handle.readSync();
      }
      if (e === null) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await handle.close();
  }
  return names.sort();
}

/**
 * Every file under `root`, recursively, as its path relative to `root`
 * (`/`-separated), in sorted order of that relative path (byte order), so the
 * result never depends on the file system's listing order. Hidden entries
 * (`.name`) and `exclude` are skipped. The walk is depth first with each
 * folder's entries sorted as they would be in the whole list (a folder `a` as
 * `a/`), so the files come out in global order one folder at a time: only one
 * folder's names are held at once, never the whole listing.
 */
export async function walkFiles(
  root: string,
  visit: (rel: string) => void,
  exclude?: string,
): Promise<void> {
  const skip = exclude ? resolve(exclude) : undefined;
  async function walk(dir: string, prefix: string): Promise<void> {
    for (const name of await sortedNames(dir || sep)) {
      const folder = name.endsWith('/');
      const path = dir + sep + (folder ? name.slice(0, -1) : name);
      if (skip && (path === skip || path.startsWith(skip + sep))) continue;
      if (folder) await walk(path, prefix + name);
      else visit(prefix + name);
    }
  }
  const top = resolve(root);
  await walk(top === sep ? '' : top, '');
}

/**
 * The label a folder input gives the file at `rel` (relative, `/`-separated):
 * with `folderLabels`, the first folder under the input it sits in (the
 * ImageFolder layout `root/<label>/<file>`); none for a file directly in the
 * input, or without `folderLabels`.
 */
export function folderLabel(rel: string, folderLabels: boolean): string | undefined {
  const slash = rel.indexOf('/');
  return folderLabels && slash > 0 ? rel.slice(0, slash) : undefined;
}

/**
 * The candidate samples of a folder: one per file (which files are images is
 * found when they are listed). With `folderLabels`, a file's label is the
 * name of the first folder under `root` it sits in (the ImageFolder layout
 * `root/<label>/<file>`); a file directly in `root` then has no label.
 */
export async function collectFolder(
  root: string,
  options: { folderLabels: boolean; exclude?: string },
): Promise<SampleTable> {
  const table = new SampleTable({ type: 'folder', root: resolve(root) });
  await walkFiles(
    root,
    (rel) => table.add(rel, folderLabel(rel, options.folderLabels)),
    options.exclude,
  );
  table.seal();
  return table;
}
