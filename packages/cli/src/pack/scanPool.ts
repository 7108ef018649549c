import type { Worker } from 'node:worker_threads';
import type { ImageCheck } from '../input/checkImage.js';
import { PackError } from '../PackError.js';
import type { ChunkRequest } from './assembleChunk.js';
import { poolSize, startPoolWorker, takePrestarted } from './prestartWorkers.js';

/** What a pool worker found for one listed file: its size (and its check, when it was read), or why it failed. */
export interface ListResult {
  /** File size in bytes. */
  size?: number;
  /** The image check, when the file was read; absent then when it is not an image we pack. */
  check?: ImageCheck;
  /** What went wrong (stat or read error, broken image). */
  error?: string;
}

/** The results of one list message. */
export interface ListBatch {
  /** One result per path, in order. */
  results: ListResult[];
}

/** A message to a pool worker: list files, or assemble a chunk of tar. */
export type PoolRequest =
  | { id: number; op: 'list'; paths: string[]; read: Uint8Array; keepTags: readonly string[] }
  | { id: number; op: 'tar'; chunk: ChunkRequest };

/** A pool worker's answer. */
export type PoolReply =
  | ({ id: number } & ListBatch)
  | { id: number; bytes: Uint8Array }
  | { id: number; failure: { code: PackError['code']; file: string; message: string } };

/** The PackError a worker's failure reply stands for. */
function replyError(f: { code: PackError['code']; file: string; message: string }): PackError {
  return new PackError(f.code, f.file, f.message.slice(f.file.length + 2));
}

/** Messages a worker holds at once: it starts the next while the last reply travels. */
const PER_WORKER = 2;

type Job = {
  request: PoolRequest;
  worker?: Worker;
  resolve: (r: PoolReply) => void;
  reject: (e: unknown) => void;
};

/**
 * Worker threads (one per core, at most 8) that list files (a `stat` each, and
 * a read for the few whose name does not tell what the plan needs: many files
 * per message) and assemble chunks of tar (read the files straight into the
 * chunk, check them against the plan, decode with `--decode`). Work is
 * cut in large messages so the round trips cost little per file. `close` ends
 * the workers; pending calls reject.
 */
export class ScanPool {
  private readonly workers: Worker[] = [];
  private readonly busy = new Map<Worker, number>();
  private readonly queue: Job[] = [];
  private readonly pending = new Map<number, Job>();
  private nextId = 0;
  private failure: unknown;

  /** @param size - worker threads; the default takes those bin.ts started ahead, if any */
  constructor(size?: number) {
    const early = size === undefined ? (takePrestarted() ?? []) : [];
    const count = size ?? (early.length || poolSize());
    for (let i = 0; i < count; i++) {
      const worker = early[i]?.worker ?? startPoolWorker();
      worker.on('message', (reply: PoolReply) => {
        this.busy.set(worker, (this.busy.get(worker) ?? 1) - 1);
        const job = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        job?.resolve(reply);
        this.pump();
      });
      worker.on('error', (error) => this.fail(error));
      this.workers.push(worker);
      this.busy.set(worker, 0);
    }
    // a worker that failed before this pool took it (its error event is past)
    for (const e of early) if (e.error !== undefined) this.fail(e.error);
  }

  /** Worker threads in the pool. */
  get size(): number {
    return this.workers.length;
  }

  /**
   * The size of each file at `paths` (one result per path, in order); the files
   * whose `read` flag is 1 are read too and checked (their kind, size in pixels,
   * DICOM header with the `keepTags`).
   */
  async list(paths: string[], read: Uint8Array, keepTags: readonly string[]): Promise<ListBatch> {
    const reply = await this.run({ id: this.nextId++, op: 'list', paths, read, keepTags });
    return reply as ListBatch;
  }

  /** The tar bytes of a chunk (see assembleChunk); a bad file rejects with its PackError. */
  async assemble(chunk: ChunkRequest): Promise<Uint8Array> {
    const reply = await this.run({ id: this.nextId++, op: 'tar', chunk });
    delete chunk.reuse; // moved to the worker
    if ('failure' in reply) throw replyError(reply.failure);
    return (reply as { bytes: Uint8Array }).bytes;
  }

  /** End the workers; pending calls reject. */
  async close(): Promise<void> {
    this.fail(new Error('scan pool closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private run(request: PoolRequest): Promise<PoolReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      // the least busy worker, if it has room
      let best: Worker | undefined;
      for (const w of this.workers) {
        const n = this.busy.get(w) ?? 0;
        if (n < PER_WORKER && (!best || n < (this.busy.get(best) ?? 0))) best = w;
      }
      if (!best) return;
      const job = this.queue.shift() as Job;
      this.busy.set(best, (this.busy.get(best) ?? 0) + 1);
      this.pending.set(job.request.id, job);
      const reuse = job.request.op === 'tar' ? job.request.chunk.reuse : undefined;
      best.postMessage(job.request, reuse ? [reuse] : []);
    }
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const job of this.pending.values()) job.reject(error);
    this.pending.clear();
    for (const job of this.queue.splice(0)) job.reject(error);
  }
}
