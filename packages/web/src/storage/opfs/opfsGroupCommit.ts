import type { OpfsFile } from './opfsFiles.js';

/**
 * The OPFS segment engine's group commit: the files written since their last
 * flush, the one timer that flushes them at most `delayMs` after the first of
 * those writes, and how many commits ran. Internal.
 */
export class GroupCommit {
  private readonly written = new Set<OpfsFile>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Commits that flushed something, since construction. */
  count = 0;

  /**
   * @param delayMs longest wait from a write to its flush; 0 = the caller flushes each batch
   * @param onDue called when a scheduled commit is due (it takes the lock and calls {@link flush})
   */
  constructor(
    private readonly delayMs: number,
    private readonly onDue: () => void,
  ) {}

  /** `file` was written: it joins the open commit. */
  wrote(file: OpfsFile): void {
    this.written.add(file);
  }

  /** `file` goes away (evicted, cleared): nothing to flush there. */
  forget(file: OpfsFile): void {
    this.written.delete(file);
  }

  /** Whether a commit is scheduled (the engine keeps the writer lock until it runs). */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** After a batch: schedule the commit and return true, or false when the delay is 0 (flush now). */
  schedule(): boolean {
    if (this.delayMs === 0) return false;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.onDue();
    }, this.delayMs);
    return true;
  }

  /** Drop the scheduled commit (the caller flushes now, or is closing). */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Flush every file written since its last flush (the caller holds the writer lock). */
  async flush(): Promise<void> {
    if (this.written.size === 0) return;
    this.count++;
    for (const f of this.written) await f.flush();
    this.written.clear();
  }
}
