import { KIND_CODES, kindCode, kindOfName, type SampleTable } from '../input/SampleTable.js';
import { PackError } from '../PackError.js';
import type { Progress } from '../progress.js';
import type { DecodeOptions } from './decodePixels.js';
import type { ListBatch, ListResult, ScanPool } from './scanPool.js';

/** Files per list message to a worker: large enough that a round trip costs little per file. */
const LIST_BATCH = 512;

/** List messages queued per worker at once (bounds the paths held in flight). */
const BATCHES_PER_WORKER = 4;

/** What the plan needs to know of the files beyond their names and sizes. */
export interface ListNeeds {
  /** DICOM keywords to store (`--keep-tags`): DICOM headers are read. */
  keepTags: readonly string[];
  /** `--split` groups DICOM files by patient: DICOM headers are read. */
  split: boolean;
  /** `--decode`: without `--size`, every image's size in pixels is read. */
  decode?: DecodeOptions;
}

/**
 * Fill `table`'s sizes and kinds: a `stat` per file (in the pool's workers,
 * {@link LIST_BATCH} files a message, a few messages per worker in flight), the
 * kind from the file's name. A file is read (and checked) only when its name
 * does not tell its kind, or when the plan needs what is inside: DICOM headers
 * for `--keep-tags` and `--split`, pixel sizes for `--decode` without `--size`.
 * A folder's files that are not images keep kind 0 and are left out; in a CSV
 * they are a `PACK_INPUT` PackError. The first failure in input order is thrown.
 *
 * With `listed` (sizes from a listing file, `--listing`), no file is `stat`ed:
 * only the files that must be read are sent to the workers, and one whose size
 * is not the listed one is a `PACK_INPUT` PackError naming it.
 */
export async function listInput(
  pool: ScanPool,
  table: SampleTable,
  needs: ListNeeds,
  csv: boolean,
  progress: Progress,
  signal: AbortSignal,
  listed = false,
): Promise<void> {
  const n = table.count;
  progress.phase('list', n);
  const sizes = needs.decode !== undefined && needs.decode.width === undefined;
  if (sizes) {
    table.width = new Uint32Array(n);
    table.height = new Uint32Array(n);
  }
  const dicomHeaders = needs.keepTags.length > 0 || needs.split;
  const nameKinds = new Uint8Array(n);
  // A batch: the files from `from` up to `to`, of which `sent` went to a worker
  // (all of them, or with `listed` only those that must be read).
  type Sent = {
    from: number;
    to: number;
    sent: Uint32Array;
    read: Uint8Array;
    batch: Promise<ListBatch>;
  };
  const send = (from: number): Sent => {
    const to = Math.min(n, from + LIST_BATCH);
    const paths: string[] = [];
    const sent = new Uint32Array(to - from);
    const read = new Uint8Array(to - from);
    for (let i = from; i < to; i++) {
      // A listing gave the kinds the names tell; else the name is made (and looked at) here.
      const kind = listed ? KIND_CODES[table.kind[i] as number] : kindOfName(table.rel(i));
      nameKinds[i] = kind ? kindCode(kind) : 0;
      const must = !kind || sizes || (kind === 'dcm' && dicomHeaders);
      if (listed && !must) continue;
      sent[paths.length] = i;
      read[paths.length] = must ? 1 : 0;
      paths.push(table.path(i));
    }
    const batch =
      paths.length > 0
        ? pool.list(paths, read.subarray(0, paths.length), needs.keepTags)
        : Promise.resolve({ results: [] });
    batch.catch(() => {}); // awaited below, in order
    return { from, to, sent: sent.subarray(0, paths.length), read, batch };
  };
  const fold = (i: number, r: ListResult, read: boolean): PackError | undefined => {
    if (r.error !== undefined) return new PackError('PACK_INPUT', table.source(i), r.error);
    if (listed && r.size !== table.size[i]) {
      return new PackError(
        'PACK_INPUT',
        table.source(i),
        `the file changed size since it was listed: ${table.size[i]} bytes in the listing, ${r.size} now`,
      );
    }
    table.size[i] = r.size as number;
    if (!read) {
      table.kind[i] = nameKinds[i] as number;
      return undefined;
    }
    const check = r.check;
    if (!check) {
      if (csv) return new PackError('PACK_INPUT', table.source(i), 'not a PNG, JPEG or DICOM file');
      return undefined; // a folder's file that is not an image: left out
    }
    table.kind[i] = kindCode(check.kind);
    if (table.width && table.height) {
      table.width[i] = check.width ?? 0;
      table.height[i] = check.height ?? 0;
    }
    const dicom = check.dicom;
    if (dicom) {
      const group = dicom.patient || dicom.study;
      if (group) table.setGroup(i, group);
      table.keep(i, dicom.kept);
    }
    return undefined;
  };
  const window: Sent[] = [];
  let next = 0;
  const fill = () => {
    while (next < n && window.length < BATCHES_PER_WORKER * pool.size) {
      window.push(send(next));
      next += LIST_BATCH;
    }
  };
  try {
    for (fill(); window.length > 0; fill()) {
      const { from, to, sent, read, batch } = window.shift() as Sent;
      const { results } = await batch;
      let k = 0;
      let bytes = 0;
      for (let i = from; i < to; i++) {
        if (k < sent.length && sent[k] === i) {
          const failure = fold(i, results[k] as ListResult, read[k] === 1);
          if (failure) throw failure;
          k++;
        } else table.kind[i] = nameKinds[i] as number; // listed, the name tells its kind
        bytes += table.size[i] as number;
      }
      progress.tick(to - from, bytes);
    }
  } catch (error) {
    signal.throwIfAborted(); // Ctrl-C closed the pool: report the stop, not the pool
    throw error;
  }
  signal.throwIfAborted();
}
