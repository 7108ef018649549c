import { isQuotaError } from '@medfusion/core';
import { describe } from '@medfusion/core/internal';
import { StoreError } from '../storeErrors.js';
import type { OpfsFile } from './opfsFiles.js';

/**
 * The OPFS segment engine's group commit: the files written since their last
 * flush, the one timer that flushes them at most `delayMs` after the first of
 * those writes, and how many commits ran. A commit the timer runs flushes
 * aside (see OpfsFile.flushAside: on another thread where there is one), so
 * write batches go on while the disk catches up; {@link flush} waits for it,
 * and {@link throwFailure} reports the first background flush that failed
 * since the last report (its files join the next commit): a quota or disk
 * error seen on the flush thread reaches the page, once, as its own class.
 * Internal.
 */
export class GroupCommit {
  private readonly written = new Set<OpfsFile>();
  /** Files a background commit is flushing (a failed one goes back to `written`). */
  private readonly flushing = new Set<OpfsFile>();
  /** The background commits in flight, chained (never rejects). */
  private aside: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The first background flush failure since the last {@link flush}. */
  private failure: unknown;
  /** Commits that flushed something, since construction. */
  count = 0;
  /** Of those, the ones another thread flushed entirely (see OpfsFile.flushAside). */
  asideCount = 0;

  /**
   * @param delayMs longest wait from a write to its flush; 0 = the caller flushes each batch
   * @param onDue called when a scheduled commit is due (it takes the lock and calls {@link commitAside})
   */
  constructor(
    private readonly delayMs: number,
    private readonly onDue: () => void,
    /** Told of every background flush that failed (the engine counts quota errors). */
    private readonly onFailure: (err: unknown) => void = () => {},
  ) {}

  /** `file` was written: it joins the open commit. */
  wrote(file: OpfsFile): void {
    this.written.add(file);
  }

  /** `file` goes away (evicted, cleared): nothing to flush there. */
  forget(file: OpfsFile): void {
    this.written.delete(file);
    this.flushing.delete(file);
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

  /**
   * Start flushing every file written since its last flush in the
   * background (the caller holds the writer lock and may let go at once).
   * A file whose background flush fails joins the next commit again.
   */
  commitAside(): void {
    if (this.written.size === 0) return;
    this.count++;
    const files = [...this.written];
    this.written.clear();
    for (const f of files) this.flushing.add(f);
    const flushOne = (f: OpfsFile): Promise<boolean> =>
      (f.flushAside ? f.flushAside() : f.flush().then(() => false)).then(
        (aside) => {
          this.flushing.delete(f);
          return aside;
        },
        (err: unknown) => {
          // Still ours (not evicted meanwhile): flushed again by the next commit.
          if (this.flushing.delete(f)) {
            this.onFailure(err);
            this.failure ??= err;
            this.written.add(f);
            this.schedule();
          }
          return false;
        },
      );
    const job = (this.aside ?? Promise.resolve()).then(async () => {
      const aside = await Promise.all(files.map(flushOne));
      if (aside.every(Boolean)) this.asideCount++;
    });
    this.aside = job;
    void job.then(() => {
      if (this.aside === job) this.aside = undefined;
    });
  }

  /** Resolves once no background commit is in flight (its flush thread lets go of the files). */
  async idle(): Promise<void> {
    while (this.aside) await this.aside;
  }

  /**
   * Flush every file written since its last flush, after the background
   * commits in flight (the caller holds the writer lock).
   */
  async flush(): Promise<void> {
    await this.idle();
    if (this.written.size === 0) return;
    this.count++;
    for (const f of this.written) await f.flush();
    this.written.clear();
  }

  /**
   * Throw the first background flush failure since the last call, if any, as
   * a StoreError (`QUOTA_EXCEEDED` for a quota error) whose `cause` is the
   * error itself; the store's `flush()` calls it after {@link flush}.
   */
  throwFailure(): void {
    const failure = this.failure;
    if (failure === undefined) return;
    this.failure = undefined;
    const quota = isQuotaError(failure);
    throw new StoreError(
      quota ? 'QUOTA_EXCEEDED' : 'STORE_FAILED',
      `a background flush failed${quota ? ': storage quota exceeded' : ''} (${describe(failure)})`,
      { cause: failure },
    );
  }
}
