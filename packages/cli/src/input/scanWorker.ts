// A worker thread of the scan pool: reads a file, checks it (checkImage) and
// hashes it (sha256), so the cores check and hash files in parallel.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { checkImage } from './checkImage.js';
import type { ScanReply, ScanRequest } from './scanPool.js';

parentPort?.on('message', async (request: ScanRequest) => {
  let reply: ScanReply;
  try {
    const bytes = await readFile(request.path);
    const check = checkImage(bytes, request.keepTags);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    reply = { id: request.id, size: bytes.length, sha256, ...(check ? { check } : {}) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    reply = { id: request.id, error: code === 'ENOENT' ? 'file not found' : message };
  }
  parentPort?.postMessage(reply);
});
