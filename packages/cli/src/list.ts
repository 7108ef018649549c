import { open, rename, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { collectFolder } from './input/collectFolder.js';
import { PackError } from './PackError.js';
import { listInput } from './pack/listInput.js';
import { ScanPool } from './pack/scanPool.js';
import { TEMP_SUFFIX } from './pack/writeShard.js';
import type { Progress } from './progress.js';

/** Characters of listing text gathered before each write. */
const WRITE_CHARS = 1 << 20;

/** What `medfusion list` wrote. */
export interface ListResult {
  /** Files listed (the images `medfusion pack` would take). */
  files: number;
  /** Their bytes together. */
  bytes: number;
  /** Files left out: not PNG, JPEG or DICOM. */
  skipped: number;
}

/**
 * `medfusion list`: walk the folder `input` once, `stat` every file (reading
 * only those whose name does not tell their kind), and write the listing file
 * `out`: a line `<size><TAB><path relative to input>` per PNG, JPEG or DICOM
 * file, sorted by path. `medfusion pack --listing` reads it instead of walking
 * the folder, so the parts of a pack (`--part i/n`) list the input once between
 * them, not once each. Written under a temporary name, then renamed.
 */
export async function list(
  input: string,
  out: string,
  progress: Progress,
  signal: AbortSignal,
): Promise<ListResult> {
  const root = resolve(input);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory())
    throw new PackError('PACK_INPUT', input, 'is not a folder (list takes a folder input)');
  if ((await stat(out).catch(() => undefined))?.isDirectory())
    throw new PackError('PACK_OUTPUT', out, 'is a folder: --out names the listing file to write');
  const temp = `${out}${TEMP_SUFFIX}`;
  const pool = new ScanPool();
  const abort = () => void pool.close();
  signal.addEventListener('abort', abort, { once: true });
  try {
    const table = await collectFolder(root, { folderLabels: false, exclude: resolve(out) });
    await listInput(pool, table, { keepTags: [], split: false }, false, progress, signal);
    const result: ListResult = { files: 0, bytes: 0, skipped: 0 };
    const handle = await open(temp, 'w');
    try {
      let text = '';
      for (let i = 0; i < table.count; i++) {
        if (table.kind[i] === 0) {
          result.skipped++;
          continue;
        }
        const rel = table.rel(i);
        if (/[\r\n]/.test(rel))
          throw new PackError('PACK_INPUT', rel, 'a name with a line break cannot be listed');
        text += `${table.size[i]}\t${rel}\n`;
        result.files++;
        result.bytes += table.size[i] as number;
        if (text.length >= WRITE_CHARS) {
          await handle.write(text);
          text = '';
          signal.throwIfAborted();
        }
      }
      await handle.write(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, out);
    return result;
  } catch (error) {
    await rm(temp, { force: true });
    signal.throwIfAborted(); // Ctrl-C closed the pool: report the stop, not the pool
    throw error;
  } finally {
    signal.removeEventListener('abort', abort);
    await pool.close();
  }
}
