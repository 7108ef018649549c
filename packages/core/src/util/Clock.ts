/** An opaque handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * Time and timers, injected so scheduling can be tested deterministically
 * (see `ManualClock`). Every component that waits or measures takes one.
 */
export interface Clock {
  /** Milliseconds from an arbitrary origin, monotonic. */
  now(): number;
  /** Call `fn` after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancel a timer made by {@link Clock.setTimeout}. */
  clearTimeout(handle: TimerHandle): void;
}

interface TimerGlobals {
  performance?: { now(): number };
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The platform clock: `performance.now()` and the global timers. */
export const systemClock: Clock = {
  now: () => {
    const g = globalThis as unknown as TimerGlobals;
    return g.performance ? g.performance.now() : Date.now();
  },
  setTimeout: (fn, ms) => (globalThis as unknown as TimerGlobals).setTimeout(fn, ms),
  clearTimeout: (handle) => (globalThis as unknown as TimerGlobals).clearTimeout(handle),
};

/**
 * A clock that only moves when told to. Timers fire in due order inside
 * {@link ManualClock.advance}.
 *
 * @example
 * const clock = new ManualClock();
 * clock.setTimeout(() => console.log('fired'), 100);
 * await clock.advance(100); // logs 'fired'
 */
export class ManualClock implements Clock {
  private time = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  /** Current time in milliseconds. */
  now(): number {
    return this.time;
  }

  /** Schedule `fn` at now + ms. */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return id;
  }

  /** Cancel a pending timer. */
  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** Number of timers not yet fired. */
  get pending(): number {
    return this.timers.size;
  }

  /**
   * Move time forward by `ms`, firing due timers in order; between timers the
   * microtask queue is drained so promise chains settle as they would.
   */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await flushMicrotasks();
      let nextId = -1;
      let nextAt = Number.POSITIVE_INFINITY;
      for (const [id, t] of this.timers) {
        if (t.at < nextAt || (t.at === nextAt && id < nextId)) {
          nextAt = t.at;
          nextId = id;
        }
      }
      if (nextId < 0 || nextAt > end) break;
      const timer = this.timers.get(nextId)!;
      this.timers.delete(nextId);
      this.time = nextAt;
      timer.fn();
    }
    this.time = end;
    await flushMicrotasks();
  }
}

/** Let pending promise reactions run (several turns of the microtask queue). */
export async function flushMicrotasks(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}
