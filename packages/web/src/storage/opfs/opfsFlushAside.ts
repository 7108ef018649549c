/** One fsync for the flush thread: the file to flush, by its handle. Internal. */
export interface FlushJob {
  id: number;
  file: FileSystemFileHandle;
}

/** The flush thread's answer to job `id`: done, or why not. Internal. */
export interface FlushReply {
  id: number;
  error?: string;
}

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
   * when the flush failed there.
   */
  flush(file: FileSystemFileHandle): Promise<boolean> {
    const worker = this.start();
    if (!worker) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      const id = ++this.seq;
      this.waiting.set(id, { resolve: () => resolve(true), reject });
      worker.postMessage({ id, file } satisfies FlushJob);
    });
  }

  private start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(new URL('./opfsFlush.worker.js', import.meta.url), {
        type: 'module',
        name: 'medfusion-opfs-flush',
      });
      worker.onmessage = (ev: MessageEvent<FlushReply>) => {
        const w = this.waiting.get(ev.data.id);
        this.waiting.delete(ev.data.id);
        if (ev.data.error === undefined) w?.resolve();
        else w?.reject(new Error(`flushing on the flush thread failed: ${ev.data.error}`));
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
