import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ImageCheck } from './checkImage.js';

/** A file for a scan worker. */
export interface ScanRequest {
  /** Request number (matches the reply). */
  id: number;
  /** Absolute path. */
  path: string;
  /** DICOM keywords to read into the sample. */
  keepTags: readonly string[];
}

/** A scan worker's answer: the file's size, sha256 and check, or why it failed. */
export interface ScanReply {
  /** Request number. */
  id: number;
  /** File size in bytes. */
  size?: number;
  /** Hex sha256 of the file. */
  sha256?: string;
  /** The image check; absent when the file is not an image we pack. */
  check?: ImageCheck;
  /** What went wrong (read error or broken image). */
  error?: string;
}

/**
 * Worker threads that read, check and hash files in parallel (one per core,
 * at most 8). `scan` resolves with the worker's reply; `close` ends them.
 */
export class ScanPool {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: {
    request: ScanRequest;
    resolve: (r: ScanReply) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private readonly pending = new Map<
    number,
    { resolve: (r: ScanReply) => void; reject: (e: unknown) => void; worker: Worker }
  >();
  private nextId = 0;
  private failure: unknown;

  constructor(size = Math.min(8, Math.max(1, availableParallelism()))) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('./scanWorker.js', import.meta.url));
      worker.on('message', (reply: ScanReply) => {
        const p = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        this.idle.push(worker);
        this.pump();
        p?.resolve(reply);
      });
      worker.on('error', (error) => this.fail(error));
      this.workers.push(worker);
      this.idle.push(worker);
    }
  }

  /** Read, check and hash the file at `path`. */
  scan(path: string, keepTags: readonly string[]): Promise<ScanReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, path, keepTags }, resolve, reject });
      this.pump();
    });
  }

  /** End the workers; pending scans reject. */
  async close(): Promise<void> {
    this.fail(new Error('scan pool closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop() as Worker;
      const job = this.queue.shift() as (typeof this.queue)[number];
      this.pending.set(job.request.id, { resolve: job.resolve, reject: job.reject, worker });
      worker.postMessage(job.request);
    }
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    for (const job of this.queue.splice(0)) job.reject(error);
  }
}
