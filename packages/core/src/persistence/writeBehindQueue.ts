import { type Clock, systemClock, type TimerHandle } from '../util/Clock.js';
import { nonNegativeFinite, optionsBag, positiveInt, withDefault } from '../util/validate.js';

/** Options of {@link WriteBehindQueue}. */
export interface WriteBehindQueueOptions {
  /**
   * Most writes waiting or running at once; further writes are dropped (and
   * counted) rather than slowing the caller down.
   * @default 64
   */
  maxPending?: number;
  /**
   * Most bytes waiting or running at once.
   * @default 67108864 (64 MiB)
   */
  maxBytes?: number;
  /**
   * Writes handed to the store at the same time (stores batch concurrent
   * writes). The queue refills only when the thread that owns it is free to
   * read the store's answers, once per training step on a busy page, so this
   * bounds the writes per step: a small number there drops writes once the
   * queue is full, and the next epoch loads those samples from the source again.
   * @default 64
   */
  concurrency?: number;
  /**
   * Longest time a write waits for others to join it: writes handed to the
   * store together arrive there as one (one OPFS append, message and reply;
   * one IndexedDB transaction), where loads that finish one by one would
   * each cost the store a message, a file write and a change notice of their
   * own. Writes go at once when half the queue's room is taken, and on
   * `flush()` / `close()`. `0` hands each write over as it comes.
   * @default 100
   */
  delayMs?: number;
}

/**
 * {@link WriteBehindQueueOptions} checked, errors naming `${name}.maxPending` and so on
 * (`diskWriteQueue` where the option has that name), with the defaults filled in.
 */
export function resolveWriteQueueOptions(
  options: WriteBehindQueueOptions | undefined,
  name = 'writeQueue',
): Required<WriteBehindQueueOptions> {
  const o = optionsBag(name, options);
  return {
    maxPending: withDefault(`${name}.maxPending`, o.maxPending, 64, positiveInt),
    maxBytes: withDefault(`${name}.maxBytes`, o.maxBytes, 64 * 2 ** 20, positiveInt),
    concurrency: withDefault(`${name}.concurrency`, o.concurrency, 64, positiveInt),
    delayMs: withDefault(`${name}.delayMs`, o.delayMs, 100, nonNegativeFinite),
  };
}

/** Counters of a {@link WriteBehindQueue}. */
export interface WriteBehindStats {
  /** Writes waiting or running now. */
  pending: number;
  /** Bytes waiting or running now. */
  pendingBytes: number;
  /** Writes that completed. */
  written: number;
  /** Writes refused because the queue was full, closed or disabled. */
  dropped: number;
  /** Writes whose store call failed. */
  failed: number;
}

/** The write a {@link WriteBehindQueue} performs for each entry. */
export type WriteFn = (key: string, value: Uint8Array) => Promise<void>;

/**
 * A bounded queue of store writes that runs behind the caller: `enqueue`
 * never waits, never throws for a full queue, and drops the write instead
 * (the sample is simply not cached). Failures go to `onError`.
 *
 * @example
 * const q = new WriteBehindQueue((k, v) => store.put(k, v), { maxPending: 32 });
 * q.enqueue('ds/0', bytes); // returns at once
 * await q.flush();          // all accepted writes settled
 */
export class WriteBehindQueue {
  private readonly waiting: { key: string; value: Uint8Array }[] = [];
  private readonly keys = new Set<string>();
  private running = 0;
  private bytes = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  /** The delay ran out (or half the room is taken): waiting writes may start. */
  private due = false;
  private timer: TimerHandle | undefined;
  private readonly delayMs: number;
  private readonly maxPending: number;
  private readonly maxBytes: number;
  private readonly concurrency: number;
  private readonly counters = { written: 0, dropped: 0, failed: 0 };

  constructor(
    private readonly write: WriteFn,
    options: WriteBehindQueueOptions = {},
    private readonly onError: (err: unknown, key: string) => void = () => {},
    /**
     * Whether a write may start now; false while reads are waiting on the
     * store (writes yield to reads). Call {@link WriteBehindQueue.resume} when it turns true.
     * Yielding never starves the queue: once half of `maxPending` or `maxBytes` is
     * waiting, writes start whatever this says (else a cold epoch, whose reads never
     * stop, would drop every write once the queue is full).
     */
    private readonly mayStart: () => boolean = () => true,
    /** Time source of the `delayMs` timer (inject a ManualClock in tests). */
    private readonly clock: Clock = systemClock,
  ) {
    ({
      maxPending: this.maxPending,
      maxBytes: this.maxBytes,
      concurrency: this.concurrency,
      delayMs: this.delayMs,
    } = resolveWriteQueueOptions(options));
  }

  /**
   * Queue a write; false when it was dropped (queue full, key already queued,
   * or queue closed).
   */
  enqueue(key: string, value: Uint8Array): boolean {
    if (
      this.closed ||
      this.keys.has(key) ||
      this.keys.size >= this.maxPending ||
      this.bytes + value.byteLength > this.maxBytes
    ) {
      this.counters.dropped++;
      return false;
    }
    this.keys.add(key);
    this.bytes += value.byteLength;
    this.waiting.push({ key, value });
    if (this.delayMs === 0 || this.halfFull()) this.due = true;
    else this.timer ??= this.clock.setTimeout(() => this.timeUp(), this.delayMs);
    this.pump();
    return true;
  }

  /** The delay ran out: the writes waiting for it go. */
  private timeUp(): void {
    this.timer = undefined;
    this.due = true;
    this.pump();
  }

  /** Half of the queue's room is taken: writes stop yielding to reads. */
  private halfFull(): boolean {
    return this.waiting.length * 2 >= this.maxPending || this.bytes * 2 >= this.maxBytes;
  }

  /** Start waiting writes (reads on the store finished). */
  resume(): void {
    this.pump();
  }

  private pump(): void {
    const urgent = this.closed || this.idleWaiters.length > 0;
    if (!this.due && !urgent) return; // still gathering writes to hand over together
    while (this.running < this.concurrency && this.waiting.length > 0) {
      if (!urgent && !this.mayStart() && !this.halfFull()) return;
      const job = this.waiting.shift()!;
      this.running++;
      this.write(job.key, job.value).then(
        () => {
          this.counters.written++;
          this.done(job.key, job.value.byteLength);
        },
        (err: unknown) => {
          this.counters.failed++;
          // First: a quota error discards what waits, so no further write starts.
          this.onError(err, job.key);
          this.done(job.key, job.value.byteLength);
        },
      );
    }
    if (this.waiting.length === 0) {
      // Everything that waited went: the next write starts a new delay.
      this.due = false;
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private done(key: string, size: number): void {
    this.running--;
    this.keys.delete(key);
    this.bytes -= size;
    this.pump();
    if (this.running === 0 && this.waiting.length === 0) this.notifyIdle();
  }

  /** Drop every write not yet started (counted as dropped). */
  discardPending(): void {
    for (const job of this.waiting) {
      this.keys.delete(job.key);
      this.bytes -= job.value.byteLength;
      this.counters.dropped++;
    }
    this.waiting.length = 0;
    if (this.running === 0) this.notifyIdle();
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once every accepted write has settled (writes held for reads start now). */
  flush(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.pump();
    return idle;
  }

  /** Refuse further writes, then wait for the accepted ones. */
  async close(): Promise<void> {
    this.closed = true;
    this.pump(); // writes held for reads go now
    await this.flush();
  }

  /** Current counters. */
  stats(): WriteBehindStats {
    return {
      pending: this.keys.size,
      pendingBytes: this.bytes,
      written: this.counters.written,
      dropped: this.counters.dropped,
      failed: this.counters.failed,
    };
  }
}
