import { type FileHandle, open } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { PackError } from '../PackError.js';
import { folderLabel } from './collectFolder.js';
import { kindCode, kindOfName, MAX_FILE_BYTES, SampleTable } from './SampleTable.js';

/** Sizes per block while a listing is read (2^16): growing adds a block, never copies. */
const BLOCK = 1 << 16;

/** Bytes read from the listing at a time. */
const READ_BYTES = 1 << 20;

/** Lines read between two checks of the abort signal. */
const LINES_PER_CHECK = 4096;

/** How {@link readListing} turns a listing into samples. */
export interface ListingOptions {
  /** Label = first folder under the input (`root/<label>/<file>`), as `collectFolder` gives it. */
  folderLabels: boolean;
  /** A folder under the input whose files are left out (the pack's output folder). */
  exclude?: string;
}

/**
 * A path relative to the input: not empty, no leading or trailing `/`, no empty,
 * `.` or `..` part, no NUL. One pass over the characters (a listing has a line a file).
 */
function relativePath(rel: string): boolean {
  let start = 0; // where the current part starts
  for (let k = 0; k <= rel.length; k++) {
    const c = k < rel.length ? rel.charCodeAt(k) : 0x2f;
    if (c === 0) return false;
    if (c !== 0x2f) continue;
    const n = k - start;
    if (n === 0) return false;
    if (n <= 2 && rel.charCodeAt(start) === 0x2e && (n === 1 || rel.charCodeAt(start + 1) === 0x2e))
      return false;
    start = k + 1;
  }
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
 * Hidden paths and `exclude` are left out as the walk leaves them out. The
 * table's kinds are those the names tell (0 where a name does not: such a file
 * is read when listed). A line
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
  const sizes: Uint32Array[] = [];
  const kinds: Uint8Array[] = [];
  let line = 0;
  let previous = '';
  const bad = (why: string) => new PackError('PACK_INPUT', `${file} line ${line}`, why);
  const take = (text: string) => {
    line++;
    if (line % LINES_PER_CHECK === 0) signal?.throwIfAborted();
    if (text.endsWith('\r')) text = text.slice(0, -1); // a listing written on Windows
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
    if (hidden(rel) || (skip !== undefined && rel.startsWith(skip))) return;
    const at = table.count;
    table.add(rel, folderLabel(rel, options.folderLabels));
    if (at % BLOCK === 0) {
      sizes.push(new Uint32Array(BLOCK));
      kinds.push(new Uint8Array(BLOCK));
    }
    (sizes[sizes.length - 1] as Uint32Array)[at % BLOCK] = size;
    const kind = kindOfName(rel);
    (kinds[kinds.length - 1] as Uint8Array)[at % BLOCK] = kind ? kindCode(kind) : 0;
  };
  // Read in large pieces and cut lines by hand: a line a file, 10^6 lines and more.
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new PackError('PACK_INPUT', file, `cannot read the listing (${code})`, { cause: error });
  }
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    const utf8 = new TextDecoder('utf-8', { fatal: true });
    let rest = '';
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, null);
      const text = rest + utf8.decode(buffer.subarray(0, bytesRead), { stream: bytesRead > 0 });
      let from = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
        take(text.slice(from, nl));
        from = nl + 1;
      }
      rest = text.slice(from);
      if (bytesRead === 0) break;
    }
    if (rest !== '') take(rest); // a last line without its newline
  } catch (error) {
    if (
      error instanceof TypeError &&
      (error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA'
    )
      throw new PackError('PACK_INPUT', file, 'is not UTF-8 text', { cause: error });
    const code = (error as { code?: string }).code;
    if (code === 'EISDIR' || code === 'EIO')
      throw new PackError('PACK_INPUT', file, `cannot read the listing (${code})`, {
        cause: error,
      });
    throw error;
  } finally {
    await handle.close();
  }
  signal?.throwIfAborted();
  table.seal();
  for (let b = 0; b < sizes.length; b++) {
    const n = Math.min(BLOCK, table.count - b * BLOCK);
    table.size.set((sizes[b] as Uint32Array).subarray(0, n), b * BLOCK);
    table.kind.set((kinds[b] as Uint8Array).subarray(0, n), b * BLOCK);
  }
  return table;
}
