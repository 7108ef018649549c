import { deserializeError } from '@medfusion/core/internal';
import {
  type FlushJob,
  type FlushReply,
  OPFS_PROTOCOL_VERSION,
  opfsMessage,
} from './opfsProtocol.js';

interface Waiting {
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Flushes OPFS files from a second thread (opfsFlush.worker.ts), started on
 * first use by the OPFS worker: a sync handle's flush is an fsync that blocks
 * its thread for as long as the disk takes (tens of ms for a group commit of
 * ~100 MB), and on that thread it held up every write batch behind it. Where
 * no nested worker can start, or once the flush thread failed, {@link flush}
 * answers false and the caller flushes on its own thread. Internal.
 */
export class FlushAside {
  private worker: Worker | undefined;
  private failed = typeof Worker !== 'function';
  private seq = 0;
  private readonly waiting = new Map<number, Waiting>();

  /**
   * Flush `file` on the flush thread: resolves true once it is durable,
   * false at once when there is no flush thread (flush it yourself); rejects
   * when the flush failed there, with the error as its own class (a
   * QuotaExceededError stays one). `quota` is the store's simulated quota.
   */
  flush(file: FileSystemFileHandle, quota?: FlushJob['quota']): Promise<boolean> {
    const worker = this.start();
    if (!worker) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      const id = ++this.seq;
      this.waiting.set(id, { resolve: () => resolve(true), reject });
      const job: FlushJob = { v: OPFS_PROTOCOL_VERSION, type: 'flush', id, file };
      if (quota) job.quota = quota;
      worker.postMessage(job);
    });
  }

  private start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(new URL('./opfsFlush.worker.js', import.meta.url), {
        type: 'module',
        name: 'medfusion-opfs-flush',
      });
      worker.onmessage = (ev: MessageEvent<unknown>) => {
        const reply = opfsMessage<FlushReply>(ev.data);
        if (!reply) {
          this.fail(new Error('the OPFS flush thread answered in another protocol version'));
          return;
        }
        const w = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (reply.type === 'flushed') w?.resolve();
        else w?.reject(deserializeError(reply.error));
      };
      worker.onerror = (ev) => {
        ev.preventDefault();
        this.fail(new Error(`the OPFS flush thread failed: ${ev.message ?? 'error'}`));
      };
      this.worker = worker;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }

  /** The flush thread is gone: what waits on it fails, later flushes stay on the caller's thread. */
  private fail(err: Error): void {
    this.failed = true;
    this.worker?.terminate();
    this.worker = undefined;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
