// A worker thread of the scan pool: reads files, checks them (checkImage) and
// hashes them (sha256), a batch per message, so the cores check and hash files
// in parallel and the messages cost little per file.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { checkImage } from './checkImage.js';
import type { ScanReply, ScanRequest } from './scanPool.js';

async function scanOne(request: ScanRequest): Promise<ScanReply> {
  try {
    const bytes = await readFile(request.path);
    const check = checkImage(bytes, request.keepTags);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return { id: request.id, size: bytes.length, sha256, ...(check ? { check } : {}) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    return { id: request.id, error: code === 'ENOENT' ? 'file not found' : message };
  }
}

parentPort?.on('message', async (batch: ScanRequest[]) => {
  parentPort?.postMessage(await Promise.all(batch.map(scanOne)));
});
