// A worker thread of the scan pool: scans files (reads, checks with checkImage,
// hashes with sha256) and assembles chunks of tar (assembleChunk), many files
// per message, so the cores do the per-file work and the messages cost little.
// Files are read with the synchronous calls: in a worker they block nothing,
// and they skip the promise and thread-pool hops of each open, stat, read, close.
// Within a memory budget the scanned bytes go back with the results, so each
// file is read and hashed once (the write copies them into the tar).
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { checkImage } from '../input/checkImage.js';
import { PackError } from '../PackError.js';
import { assembleChunk, checkKept } from './assembleChunk.js';
import type { PoolReply, PoolRequest, ScanBatch, ScanResult } from './scanPool.js';

/** Bytes of scanned files this worker sent back to keep so far. */
let kept = 0;

/** The buffer a batch's files are read into, grown as needed: no allocation per file. */
let scratch: Buffer = Buffer.allocUnsafe(1 << 20);

/**
 * Read the whole file at `path` into `scratch` from `at` (open, reads to the
 * end, close), growing `scratch` (doubling, its first `at` bytes kept) as
 * needed. Returns the file's length.
 */
function readWhole(path: string, at: number): number {
  const fd = openSync(path, 'r');
  try {
    let got = 0;
    for (;;) {
      if (at + got === scratch.length) {
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger, 0, 0, at + got);
        scratch = bigger;
      }
      const n = readSync(fd, scratch, at + got, scratch.length - at - got, null);
      if (n === 0) return got;
      got += n;
    }
  } finally {
    closeSync(fd);
  }
}

function scanOne(path: string, at: number, keepTags: readonly string[]): ScanResult {
  try {
    const size = readWhole(path, at);
    const bytes = scratch.subarray(at, at + size);
    const check = checkImage(bytes, keepTags);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return { size, sha256, ...(check ? { check } : {}) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    return { error: code === 'ENOENT' ? 'file not found' : message };
  }
}

/**
 * Scan a batch of files. While this worker has sent back fewer than `keepBytes`
 * bytes, the batch's images are read one after another into `scratch` and sent
 * back with the results (one copy of exactly their bytes, transferred), so the
 * pack writes them without reading them again; each kept file's result says
 * where its bytes are (`at`). Past that, each file is read at the start of
 * `scratch` and only the results go back.
 */
function scanBatch(
  paths: readonly string[],
  keepTags: readonly string[],
  keepBytes: number,
): ScanBatch {
  const keep = kept < keepBytes;
  let at = 0;
  const results = paths.map((p) => {
    const r = scanOne(p, at, keepTags);
    if (keep && r.size !== undefined && r.check) {
      r.at = at;
      at += r.size;
    }
    return r;
  });
  if (!keep || at === 0) return { results };
  kept += at;
  const start = scratch.byteOffset;
  return { results, bytes: scratch.buffer.slice(start, start + at) as ArrayBuffer };
}

parentPort?.on('message', async (request: PoolRequest) => {
  if (request.op === 'scan') {
    const batch = scanBatch(request.paths, request.keepTags, request.keepBytes);
    parentPort?.postMessage(
      { id: request.id, ...batch } satisfies PoolReply,
      batch.bytes ? [batch.bytes] : [],
    );
    return;
  }
  try {
    if (request.op === 'kept') {
      checkKept(JSON.parse(request.files));
      parentPort?.postMessage({ id: request.id, checked: true } satisfies PoolReply);
      return;
    }
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
