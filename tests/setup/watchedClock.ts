// An injected clock for tests of our timeouts against real servers and real browsers: the
// timeouts run on a ManualClock (no wall-clock bound, so a loaded machine cannot fire one early
// or late), and real time is only spent waiting for the network or the browser to reach the
// state under test (a request stalled at the server, headers at the page), with a generous bound.
import { ManualClock, type TimerHandle } from '@medfusion/core';

/** A timer set on a {@link WatchedClock} and not yet fired nor cleared. */
export interface WatchedTimer {
  handle: TimerHandle;
  /** The delay it was set with. */
  ms: number;
  /** The clock time it fires at. */
  due: number;
}

/** A ManualClock that also tells which timers are pending, with their delays, and which fired. */
export class WatchedClock extends ManualClock {
  private readonly armed = new Map<TimerHandle, WatchedTimer>();
  private readonly firedInOrder: WatchedTimer[] = [];

  override setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: WatchedTimer = {
      handle: super.setTimeout(() => {
        this.armed.delete(timer.handle);
        this.firedInOrder.push(timer);
        fn();
      }, ms),
      ms,
      due: this.now() + Math.max(0, ms),
    };
    this.armed.set(timer.handle, timer);
    return timer.handle;
  }

  override clearTimeout(handle: TimerHandle): void {
    this.armed.delete(handle);
    super.clearTimeout(handle);
  }

  /** The pending timers, in the order they were set. */
  pendingTimers(): WatchedTimer[] {
    return [...this.armed.values()];
  }

  /** Whether the timer `handle` has fired. */
  fired(handle: TimerHandle): boolean {
    return this.firedInOrder.some((t) => t.handle === handle);
  }

  /** The timers that fired, in the order they fired. */
  firedTimers(): readonly WatchedTimer[] {
    return this.firedInOrder;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A few turns of the event loop (tasks, not only microtasks), so a rejection reaches its caller. */
export async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await sleep(0);
}

/**
 * The generous bound on real time for the network or the browser to reach a state (a stalled
 * request at the server, headers at the page): seconds on an idle machine would do, and this
 * is only reached when the state never comes.
 */
export const REACH_MS = 30_000;

/** Wait (real time) until `ready()` holds; fails naming `what` after `ms`. */
export async function until(
  what: string,
  ready: () => boolean | Promise<boolean>,
  ms = REACH_MS,
): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await ready())) {
    if (performance.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await sleep(10);
  }
}

/** How {@link expireTimeout} found the work when its timer fired. */
export interface Expired {
  /** What the work failed with. */
  error: unknown;
  /** The delay of the timer that ended it. */
  ms: number;
  /** Real time spent waiting for the stall to be reached (network, browser). */
  reachMs: number;
}

/**
 * End `work`, which waits on one timer of `clock` (a request timeout, a load timeout), by
 * moving the clock, and check it is not ended before: wait (real time, up to
 * {@link REACH_MS}) until `reached()` holds and the clock has exactly one pending timer
 * (with delay `ms` when given); move the clock to 1 ms before that timer is due, let the event
 * loop turn, check `work` is still pending; move it the last 1 ms and return what `work`
 * failed with. If bytes came meanwhile and the work set a new timer (a body that was not
 * quite stalled yet), the same is done again with the new timer.
 */
export async function expireTimeout(
  clock: WatchedClock,
  work: Promise<unknown>,
  options: { ms?: number; reached?: () => boolean | Promise<boolean>; what?: string } = {},
): Promise<Expired> {
  const what = options.what ?? 'the stalled work';
  const state: { end?: { ok: boolean; value: unknown } } = {};
  work.then(
    (value) => {
      state.end = { ok: true, value };
    },
    (error: unknown) => {
      state.end = { ok: false, value: error };
    },
  );
  const started = performance.now();
  const wanted = options.ms === undefined ? '' : ` of ${options.ms} ms`;
  for (;;) {
    let timer: WatchedTimer | undefined;
    await until(`${what}: a single pending timer${wanted}`, async () => {
      if (state.end) throw new Error(`${what} settled before its timeout: ${describe(state.end)}`);
      if (options.reached && !(await options.reached())) return false;
      const pending = clock.pendingTimers();
      timer = pending.length === 1 ? pending[0] : undefined;
      return timer !== undefined && (options.ms === undefined || timer.ms === options.ms);
    });
    const { handle, ms, due } = timer as WatchedTimer;
    const reachMs = performance.now() - started;
    await clock.advance(due - 1 - clock.now());
    await turns();
    if (state.end) {
      throw new Error(`${what} settled 1 ms before its ${ms} ms timeout: ${describe(state.end)}`);
    }
    const firedBefore = clock.firedTimers().length;
    await clock.advance(1);
    if (!clock.fired(handle)) {
      // Bytes came and the timer was set again. When they came before the clock first moved,
      // the new timer is due when the old one was, and fired just now: the work was pending
      // 1 ms before it too, so it is the timeout that ended the work (seen once in WebKit under
      // two CPU hogs). Otherwise wait for the new timer as for the first.
      const same = clock
        .firedTimers()
        .slice(firedBefore)
        .some((t) => t.ms === ms && t.due === due);
      if (!same) continue;
    }
    await until(`${what}: settled after its ${ms} ms timeout fired`, () => state.end !== undefined);
    const end = state.end as { ok: boolean; value: unknown } | undefined;
    if (!end || end.ok) {
      throw new Error(`${what} resolved when its timeout fired: ${end ? describe(end) : ''}`);
    }
    return { error: end.value, ms, reachMs };
  }
}

function describe(s: { ok: boolean; value: unknown }): string {
  return s.ok ? `resolved ${String(s.value)}` : `rejected ${String(s.value)}`;
}
