// A worker thread of the scan pool: scans files (reads, checks with checkImage,
// hashes with sha256) and assembles chunks of tar (assembleChunk), many files
// per message, so the cores do the per-file work and the messages cost little.
// Files are read with the synchronous calls: in a worker they block nothing,
// and they skip the promise and thread-pool hops of each open, stat, read, close.
// Within a memory budget the scanned bytes go back with the results, so each
// file is read and hashed once (the write copies them into the tar).
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { checkImage } from '../input/checkImage.js';
import { PackError } from '../PackError.js';
import { assembleChunk } from './assembleChunk.js';
import type { PoolReply, PoolRequest, ScanBatch, ScanResult } from './scanPool.js';

/** Bytes of scanned files this worker may send back to keep (the pool's share of its memory budget). */
const keepBudget = (workerData as { keepBytes?: number } | null)?.keepBytes ?? 0;

/** Bytes sent back to keep so far (batch buffers, counted whole). */
let kept = 0;

/** Bytes the last kept batch used: the next batch's buffer starts a little larger (rarely grown, little unused). */
let lastKept = 1 << 20;

/** One buffer the files are read into when their bytes are not kept, grown as needed: no allocation per file. */
let scratch: Buffer = Buffer.allocUnsafe(1 << 20);

/** The buffer files are being read into (scratch, or a batch's own buffer whose bytes are kept). */
let target: Buffer = scratch;

/** A fresh buffer of `size` bytes with an ArrayBuffer of its own (so it can be transferred). */
function ownBuffer(size: number): Buffer {
  return Buffer.from(new ArrayBuffer(size));
}

/**
 * Read the whole file at `path` into `target` from `at` (open, reads to the end,
 * close), growing `target` (doubling, its first `at` bytes kept) as needed.
 * Returns the file's length.
 */
function readWhole(path: string, at: number): number {
  const fd = openSync(path, 'r');
  try {
    let got = 0;
    for (;;) {
      if (at + got === target.length) {
        const bigger = ownBuffer(target.length * 2);
        target.copy(bigger, 0, 0, at + got);
        target = bigger;
      }
      const n = readSync(fd, target, at + got, target.length - at - got, null);
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
    const bytes = target.subarray(at, at + size);
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
 * Scan a batch of files. While this worker's share of the budget lasts, the
 * files are read one after another into a buffer of the batch's own, sent back
 * (transferred, not copied) so the pack writes them without reading them again;
 * each kept file's result says where its bytes are (`at`). Past the budget they
 * are read into the one scratch buffer and only the results go back.
 */
function scanBatch(paths: readonly string[], keepTags: readonly string[]): ScanBatch {
  const keep = kept < keepBudget;
  target = keep ? ownBuffer(Math.ceil((lastKept * 1.125) / 4096) * 4096) : scratch;
  let at = 0;
  const results = paths.map((p) => {
    const r = scanOne(p, at, keepTags);
    if (keep && r.size !== undefined && r.check) {
      r.at = at;
      at += r.size;
    }
    return r;
  });
  if (!keep) {
    scratch = target; // grown, perhaps
    return { results };
  }
  kept += target.length;
  lastKept = Math.max(at, 4096);
  const batch = { results, bytes: target.buffer as ArrayBuffer };
  target = scratch;
  return batch;
}

parentPort?.on('message', async (request: PoolRequest) => {
  if (request.op === 'scan') {
    const batch = scanBatch(request.paths, request.keepTags);
    parentPort?.postMessage(
      { id: request.id, ...batch } satisfies PoolReply,
      batch.bytes ? [batch.bytes] : [],
    );
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
