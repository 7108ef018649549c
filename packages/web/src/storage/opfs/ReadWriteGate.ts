/**
 * Keeps one file's reads and edits apart: reads run together, an edit runs
 * alone (after the reads and edits before it, before those after it). WebKit
 * (2.50) serves a read through `getFile()` that overlaps a `createWritable()`
 * on the same file with wrong bytes, no error: zeros in place of the data, or
 * an empty file while the writable is open, and zeros from a `File` taken
 * before the writable closed. Those bytes fail the record checks, so a record
 * read while its segment was appended to was dropped as corrupt.
 */
export class ReadWriteGate {
  /** Settles when the last edit queued has run. */
  private edits: Promise<void> = Promise.resolve();
  private readonly reads = new Set<Promise<unknown>>();

  /** Run `fn` beside other reads, after every edit queued before it. */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    // Wait until no edit is queued or running (one may be queued while we wait).
    for (let last = this.edits; ; last = this.edits) {
      await last;
      if (last === this.edits) break;
    }
    const p = fn();
    this.reads.add(p);
    try {
      return await p;
    } finally {
      this.reads.delete(p);
    }
  }

  /** Run `fn` alone: after the reads and edits before it, before those queued after it. */
  edit<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.edits.then(async () => {
      while (this.reads.size > 0) await Promise.allSettled([...this.reads]);
      return fn();
    });
    this.edits = run.then(
      () => {},
      () => {},
    );
    return run;
  }
}
