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

/** Files per message to a worker (each worker reads them at once). */
const BATCH = 32;

type Job = { request: ScanRequest; resolve: (r: ScanReply) => void; reject: (e: unknown) => void };

/**
 * Worker threads that read, check and hash files in parallel (one per core,
 * at most 8), {@link BATCH} files per message. `scan` resolves with the
 * worker's reply; `close` ends them.
 */
export class ScanPool {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private queue: Job[] = [];
  private head = 0;
  private readonly pending = new Map<number, Job>();
  private nextId = 0;
  private failure: unknown;

  constructor(size = Math.min(8, Math.max(1, availableParallelism()))) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('./scanWorker.js', import.meta.url));
      worker.on('message', (replies: ScanReply[]) => {
        this.idle.push(worker);
        for (const reply of replies) {
          const job = this.pending.get(reply.id);
          this.pending.delete(reply.id);
          job?.resolve(reply);
        }
        this.pump();
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
      queueMicrotask(() => this.pump());
    });
  }

  /** End the workers; pending scans reject. */
  async close(): Promise<void> {
    this.fail(new Error('scan pool closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.idle.length > 0 && this.head < this.queue.length) {
      const worker = this.idle.pop() as Worker;
      const jobs = this.queue.slice(this.head, this.head + BATCH);
      this.head += jobs.length;
      for (const job of jobs) this.pending.set(job.request.id, job);
      worker.postMessage(jobs.map((j) => j.request));
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const job of this.pending.values()) job.reject(error);
    this.pending.clear();
    for (const job of this.queue.slice(this.head)) job.reject(error);
    this.queue = [];
    this.head = 0;
  }
}
