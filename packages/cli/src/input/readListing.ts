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
 * Whether `rel` is a path relative to the input (not empty, no leading or
 * trailing `/`, no empty, `.` or `..` part, no NUL: 0 if not), and whether a
 * part of it starts with `.` (2: hidden, which the walk of a folder skips; else
 * 1). One pass over the characters: a listing has a line a file.
 */
function checkPath(rel: string): 0 | 1 | 2 {
  let hidden = false;
  let start = 0; // where the current part starts
  for (let k = 0; k <= rel.length; k++) {
    const c = k < rel.length ? rel.charCodeAt(k) : 0x2f;
    if (c === 0) return 0;
    if (c !== 0x2f) continue;
    const n = k - start;
    if (n === 0) return 0;
    if (rel.charCodeAt(start) === 0x2e) {
      if (n === 1 || (n === 2 && rel.charCodeAt(start + 1) === 0x2e)) return 0;
      hidden = true;
    }
    start = k + 1;
  }
  return hidden ? 2 : 1;
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
 * is read when listed). A line that does not parse, a path that is not
 * relative, a size of 4 GiB or more, a path not after the line before it, or
 * text that is not UTF-8 is a `PACK_INPUT` PackError naming the listing (and
 * its line).
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
  /** Line `text[from, end)` (its newline left out). */
  const take = (text: string, from: number, end: number) => {
    line++;
    if (line % LINES_PER_CHECK === 0) signal?.throwIfAborted();
    if (end > from && text.charCodeAt(end - 1) === 0x0d) end--; // a listing written on Windows
    let size = 0;
    let at = from;
    for (; at < end; at++) {
      const digit = text.charCodeAt(at) - 0x30;
      if (digit < 0 || digit > 9) break;
      size = size * 10 + digit;
    }
    if (at === from || at === end || text.charCodeAt(at) !== 0x09) {
      throw bad(
        `expected "<size in bytes><TAB><path relative to the input>", got ${JSON.stringify(text.slice(from, Math.min(end, from + 80)))}`,
      );
    }
    const rel = text.slice(at + 1, end);
    const path = checkPath(rel);
    if (path === 0) throw bad(`${JSON.stringify(rel)} is not a path relative to the input folder`);
    if (size > MAX_FILE_BYTES)
      throw bad(`${rel} is ${text.slice(from, at)} bytes; files of 4 GiB or more are not packed`);
    if (line > 1 && rel <= previous) {
      throw bad(
        `${rel} is not after ${previous}: a listing is sorted by path, each path once (as medfusion list writes it)`,
      );
    }
    previous = rel;
    if (path === 2 || (skip !== undefined && rel.startsWith(skip))) return;
    const k = table.count;
    table.add(rel, folderLabel(rel, options.folderLabels));
    if (k % BLOCK === 0) {
      sizes.push(new Uint32Array(BLOCK));
      kinds.push(new Uint8Array(BLOCK));
    }
    (sizes[sizes.length - 1] as Uint32Array)[k % BLOCK] = size;
    const kind = kindOfName(rel);
    (kinds[kinds.length - 1] as Uint8Array)[k % BLOCK] = kind ? kindCode(kind) : 0;
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
        take(text, from, nl);
        from = nl + 1;
      }
      rest = text.slice(from);
      if (bytesRead === 0) break;
    }
    if (rest !== '') take(rest, 0, rest.length); // a last line without its newline
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
