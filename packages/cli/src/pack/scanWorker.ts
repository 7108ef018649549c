// A worker thread of the pack's pool: lists files (a stat each, and for the few
// files whose name does not tell what the plan needs, a read and a check with
// checkImage) and assembles chunks of tar (assembleChunk), many files per
// message, so the cores do the per-file work and the messages cost little.
// Files are read with the synchronous calls: in a worker they block nothing,
// and they skip the promise and thread-pool hops of each open, stat, read, close.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { checkImage } from '../input/checkImage.js';
import { MAX_FILE_BYTES } from '../input/SampleTable.js';
import { PackError } from '../PackError.js';
import { assembleChunk } from './assembleChunk.js';
import type { ListBatch, ListResult, PoolReply, PoolRequest } from './scanPool.js';

/** The buffer a file is read into, grown as needed: no allocation per file. */
let scratch: Buffer = Buffer.allocUnsafe(1 << 20);

/** Read the whole file at `path` into `scratch` (grown as needed). Returns the file's length. */
function readWhole(path: string): number {
  const fd = openSync(path, 'r');
  try {
    let got = 0;
    for (;;) {
      if (got === scratch.length) {
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger, 0, 0, got);
        scratch = bigger;
      }
      const n = readSync(fd, scratch, got, scratch.length - got, null);
      if (n === 0) return got;
      got += n;
    }
  } finally {
    closeSync(fd);
  }
}

function listOne(path: string, read: boolean, keepTags: readonly string[]): ListResult {
  try {
    const size = read ? readWhole(path) : statSync(path).size;
    if (size > MAX_FILE_BYTES)
      return { error: `is ${size} bytes; files of 4 GiB or more are not packed` };
    if (!read) return { size };
    const check = checkImage(scratch.subarray(0, size), keepTags);
    return { size, ...(check ? { check } : {}) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    return { error: code === 'ENOENT' ? 'file not found' : message };
  }
}

function listBatch(
  paths: readonly string[],
  read: Uint8Array,
  keepTags: readonly string[],
): ListBatch {
  return { results: paths.map((p, i) => listOne(p, read[i] === 1, keepTags)) };
}

parentPort?.on('message', async (request: PoolRequest) => {
  if (request.op === 'list') {
    const batch = listBatch(request.paths, request.read, request.keepTags);
    parentPort?.postMessage({ id: request.id, ...batch } satisfies PoolReply);
    return;
  }
  try {
    const bytes = await assembleChunk(request.chunk);
    parentPort?.postMessage({ id: request.id, bytes } satisfies PoolReply, [
      bytes.buffer as ArrayBuffer,
    ]);
  } catch (error) {
    if (!(error instanceof PackError)) throw error;
    const failure = { code: error.code, file: error.file, message: error.message };
    parentPort?.postMessage({ id: request.id, failure } satisfies PoolReply);
  }
});
