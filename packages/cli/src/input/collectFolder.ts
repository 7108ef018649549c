import { readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { SampleInput } from './SampleInput.js';
import { sampleKey } from './sampleKey.js';

/**
 * Every file under `root`, recursively, as absolute paths sorted by their
 * relative path (byte order), so the result never depends on the file
 * system's listing order. Hidden entries (`.name`) and `exclude` are skipped.
 */
export async function listFiles(root: string, exclude?: string): Promise<string[]> {
  const out: string[] = [];
  const skip = exclude ? resolve(exclude) : undefined;
  async function walk(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const path = join(dir, e.name);
      if (skip && (path === skip || path.startsWith(skip + sep))) continue;
      if (e.isDirectory()) await walk(path);
      else if (e.isFile()) out.push(path);
    }
  }
  await walk(resolve(root));
  // Each relative path made once (not twice per comparison).
  const keyed = out.map((path) => ({ path, rel: relative(root, path).split(sep).join('/') }));
  keyed.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return keyed.map((k) => k.path);
}

/**
 * The candidate samples of a folder: one per file (which files are images is
 * found when they are scanned). With `folderLabels`, a file's label is the
 * name of the first folder under `root` it sits in (the ImageFolder layout
 * `root/<label>/<file>`); a file directly in `root` then has no label.
 */
export async function collectFolder(
  root: string,
  options: { folderLabels: boolean; exclude?: string },
): Promise<SampleInput[]> {
  const files = await listFiles(root, options.exclude);
  return files.map((path) => {
    const rel = relative(root, path).split(sep).join('/');
    const sample: SampleInput = { key: sampleKey(rel), path, source: rel };
    const slash = rel.indexOf('/');
    if (options.folderLabels && slash > 0) sample.label = rel.slice(0, slash);
    return sample;
  });
}
