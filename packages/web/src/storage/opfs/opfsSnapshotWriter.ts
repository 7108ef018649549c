import type { FileBackend } from './opfsFiles.js';
import type { GroupCommit } from './opfsGroupCommit.js';
import type { OpfsSegmentIndex } from './opfsSegmentIndex.js';
import { writeSnapshotFile } from './opfsSnapshotFiles.js';

/**
 * When and how the segment engine persists its index: marks it changed,
 * schedules a snapshot `delayMs` later, and writes it to the older of the two
 * snapshot files. Built once by {@link OpfsSegmentEngine}. Internal.
 */
export class OpfsSnapshotWriter {
  private gen = 0;
  private changed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly fs: FileBackend,
    private readonly index: OpfsSegmentIndex,
    private readonly commit: GroupCommit,
    private readonly delayMs: number,
    /** The engine's next segment id, read when a snapshot is taken. */
    private readonly next: () => number,
    /** A scheduled snapshot is due: the engine writes it under its lock. */
    private readonly due: () => void,
  ) {}

  /** The index changed since the last snapshot. */
  get dirty(): boolean {
    return this.changed;
  }

  /** Continue from the generation of the snapshot the engine loaded. */
  resume(gen: number): void {
    this.gen = gen;
  }

  /** Note a change to the index and schedule a snapshot (unless one is). */
  markDirty(): void {
    this.changed = true;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.due();
      }, this.delayMs);
    }
  }

  /**
   * Write the index to the older of the two snapshot files (caller holds the
   * lock), after flushing the records it points at: a snapshot never names
   * bytes an OS crash could take back.
   */
  async write(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.commit.flush();
    this.gen = await writeSnapshotFile(this.fs, this.gen, (gen) =>
      this.index.snapshot(gen, this.next()),
    );
    this.changed = false;
  }

  /** Drop the scheduled snapshot (the store is closing). */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }
}
