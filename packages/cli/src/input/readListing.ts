import { createReadStream } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { PackError } from '../PackError.js';
import { folderLabel } from './collectFolder.js';
import { MAX_FILE_BYTES, SampleTable } from './SampleTable.js';

/** Sizes per block while a listing is read (2^16): growing adds a block, never copies. */
const BLOCK = 1 << 16;

/** Lines read between two checks of the abort signal. */
const LINES_PER_CHECK = 4096;

/** How {@link readListing} turns a listing into samples. */
export interface ListingOptions {
  /** Label = first folder under the input (`root/<label>/<file>`), as `collectFolder` gives it. */
  folderLabels: boolean;
  /** A folder under the input whose files are left out (the pack's output folder). */
  exclude?: string;
}

/** A path relative to the input: not empty, no leading `/`, no empty, `.` or `..` part, no NUL. */
function relativePath(rel: string): boolean {
  if (rel === '' || rel.includes('\0')) return false;
  for (const part of rel.split('/')) if (part === '' || part === '.' || part === '..') return false;
  return true;
}

/** A path with a part starting with `.`: the walk of a folder input skips those. */
function hidden(rel: string): boolean {
  return rel.startsWith('.') || rel.includes('/.');
}

/**
 * The candidate samples of folder `root` as the listing file `file` names them,
 * with their sizes: one line per file, `<size in bytes><TAB><path relative to
 * root, /-separated>`, sorted by path (what `medfusion list` writes; GNU find's
 * `-printf '%s\t%P\n'` sorted by path gives the same). The folder is not walked
 * and no file is looked at: the table is what a walk and a `stat` per file of
 * `collectFolder` would give, so a pack from the listing is the same pack.
 * Hidden paths and `exclude` are left out as the walk leaves them out. A line
 * that does not parse, a path that is not relative, a size of 4 GiB or more, or
 * a path not after the line before it is a `PACK_INPUT` PackError naming the
 * listing's line.
 */
export async function readListing(
  file: string,
  root: string,
  options: ListingOptions,
  signal?: AbortSignal,
): Promise<SampleTable> {
  const top = resolve(root);
  const table = new SampleTable({ type: 'folder', root: top });
  let skip: string | undefined;
  if (options.exclude !== undefined) {
    const rel = relative(top, resolve(options.exclude));
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
      skip = `${rel.split(sep).join('/')}/`;
  }
  const blocks: Uint32Array[] = [];
  let line = 0;
  let previous = '';
  const bad = (why: string) => new PackError('PACK_INPUT', `${file} line ${line}`, why);
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const text of lines) {
      line++;
      if (line % LINES_PER_CHECK === 0) signal?.throwIfAborted();
      const tab = text.indexOf('\t');
      const sizeText = tab > 0 ? text.slice(0, tab) : '';
      if (!/^\d+$/.test(sizeText)) {
        throw bad(
          `expected "<size in bytes><TAB><path relative to the input>", got ${JSON.stringify(text.slice(0, 80))}`,
        );
      }
      const rel = text.slice(tab + 1);
      if (!relativePath(rel))
        throw bad(`${JSON.stringify(rel)} is not a path relative to the input folder`);
      const size = Number(sizeText);
      if (size > MAX_FILE_BYTES)
        throw bad(`${rel} is ${size} bytes; files of 4 GiB or more are not packed`);
      if (line > 1 && rel <= previous) {
        throw bad(
          `${rel} is not after ${previous}: a listing is sorted by path, each path once (as medfusion list writes it)`,
        );
      }
      previous = rel;
      if (hidden(rel) || (skip !== undefined && rel.startsWith(skip))) continue;
      const at = table.count;
      table.add(rel, folderLabel(rel, options.folderLabels));
      if (at % BLOCK === 0) blocks.push(new Uint32Array(BLOCK));
      (blocks[blocks.length - 1] as Uint32Array)[at % BLOCK] = size;
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES')
      throw new PackError('PACK_INPUT', file, `cannot read the listing (${code})`, {
        cause: error,
      });
    throw error;
  } finally {
    lines.close();
    stream.destroy();
  }
  signal?.throwIfAborted();
  table.seal();
  for (let b = 0; b < blocks.length; b++) {
    const n = Math.min(BLOCK, table.count - b * BLOCK);
    table.size.set((blocks[b] as Uint32Array).subarray(0, n), b * BLOCK);
  }
  return table;
}
