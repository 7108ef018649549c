// A worker thread of the scan pool: scans files (reads, checks with checkImage,
// hashes with sha256) and assembles chunks of tar (assembleChunk), many files
// per message, so the cores do the per-file work and the messages cost little.
// Files are read with the synchronous calls: in a worker they block nothing,
// and they skip the promise and thread-pool hops of each open, stat, read, close.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { checkImage } from '../input/checkImage.js';
import { PackError } from '../PackError.js';
import { assembleChunk } from './assembleChunk.js';
import type { PoolReply, PoolRequest, ScanResult } from './scanPool.js';

/** One buffer the files are read into, grown as needed: no allocation per file. */
let scratch = Buffer.allocUnsafe(1 << 20);

/** The whole file at `path`, read into `scratch` (valid until the next call): open, reads to the end, close. */
function readWhole(path: string): Buffer {
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
      if (n === 0) return scratch.subarray(0, got);
      got += n;
    }
  } finally {
    closeSync(fd);
  }
}

function scanOne(path: string, keepTags: readonly string[]): ScanResult {
  try {
    const bytes = readWhole(path);
    const check = checkImage(bytes, keepTags);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return { size: bytes.length, sha256, ...(check ? { check } : {}) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    return { error: code === 'ENOENT' ? 'file not found' : message };
  }
}

parentPort?.on('message', async (request: PoolRequest) => {
  if (request.op === 'scan') {
    const results = request.paths.map((p) => scanOne(p, request.keepTags));
    parentPort?.postMessage({ id: request.id, results } satisfies PoolReply);
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
