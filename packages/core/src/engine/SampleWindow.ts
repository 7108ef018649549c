import type { Dataset } from '../dataset/Dataset.js';
import { LoadError, MedFusionError } from '../errors.js';
import type { EpochPlan } from '../plan/EpochPlan.js';
import { abortReason } from '../util/abort.js';

const EMPTY = 0;
const PENDING = 1;
const DONE = 2;
const FAILED = 3;

/** How a window treats failed loads under a skipping `onError` policy. */
export interface WindowFailures {
  /** True when this failure drops the sample instead of failing the batch. */
  skips(error: unknown): boolean;
  /** A failed sample was left out of its batch. */
  skipped(index: number, error: unknown): void;
}

/**
 * The in-flight `get`s of one loader iteration: a ring of `size` slots over
 * epoch positions. Loads complete in any order; {@link SampleWindow.ready}
 * waits for a contiguous range and {@link SampleWindow.take} hands it out in
 * order. Each position's index is read from the plan once, when its `get` is
 * issued (the plan is never materialised). A failed load is reported (as a `LoadError` naming the index) only
 * when its batch is needed. Internal to `DataLoader`.
 */
export class SampleWindow<T> {
  readonly values: (T | undefined)[];
  readonly status: Uint8Array;
  readonly errors: unknown[];
  /** Index of each slot's position (read from the plan when issued). */
  readonly indices: Float64Array;
  issued: number;
  private waitFrom = 0;
  private waitTo = 0;
  private waitLeft = 0;
  private wake: (() => void) | undefined;
  private fail: ((e: unknown) => void) | undefined;
  private readonly getOpts: { signal: AbortSignal };

  constructor(
    private readonly dataset: Dataset<T>,
    private readonly plan: EpochPlan,
    start: number,
    private readonly end: number,
    private readonly size: number,
    private readonly signal: AbortSignal,
    private readonly failures?: WindowFailures,
  ) {
    this.values = new Array<T | undefined>(size);
    this.status = new Uint8Array(size);
    this.errors = new Array<unknown>(size);
    this.indices = new Float64Array(size);
    this.issued = start;
    this.getOpts = { signal };
  }

  /** Issue `get`s for positions below `limit` (and within the window from `base`). */
  fill(base: number, limit: number): void {
    const stop = Math.min(limit, this.end, base + this.size);
    while (this.issued < stop && !this.signal.aborted) this.issue(this.issued++);
  }

  private issue(pos: number): void {
    const slot = pos % this.size;
    const index = this.plan.indexAt(pos);
    this.indices[slot] = index;
    let result: T | Promise<T>;
    try {
      result = this.dataset.get(index, this.getOpts);
    } catch (e) {
      this.settle(pos, slot, FAILED, undefined, e);
      return;
    }
    if (result !== null && typeof (result as Promise<T>)?.then === 'function') {
      this.status[slot] = PENDING;
      (result as Promise<T>).then(
        (v) => this.settle(pos, slot, DONE, v, undefined),
        (e: unknown) => this.settle(pos, slot, FAILED, undefined, e),
      );
    } else {
      this.settle(pos, slot, DONE, result as T, undefined);
    }
  }

  private settle(
    pos: number,
    slot: number,
    status: number,
    value: T | undefined,
    error: unknown,
  ): void {
    if (this.signal.aborted) return;
    this.status[slot] = status;
    this.values[slot] = value;
    this.errors[slot] = error;
    if (this.wake === undefined || pos < this.waitFrom || pos >= this.waitTo) return;
    if (status === FAILED && !this.skips(pos)) this.fail?.(this.errorAt(pos));
    else if (--this.waitLeft === 0) this.wake();
  }

  /** Whether the failed load at `pos` is skipped (onError policy). */
  private skips(pos: number): boolean {
    return this.failures?.skips(this.errorAt(pos)) === true;
  }

  private errorAt(pos: number): unknown {
    const e = this.errors[pos % this.size];
    if (e instanceof MedFusionError || (e instanceof Error && e.name === 'AbortError')) return e;
    return new LoadError(this.indexAt(pos), e);
  }

  /** The index at `pos` (a position issued and not yet taken). */
  indexAt(pos: number): number {
    return this.indices[pos % this.size]!;
  }

  /** Positions in [from, to) not yet loaded; throws the first failure found. */
  private missing(from: number, to: number): number {
    let left = 0;
    for (let pos = from; pos < to; pos++) {
      const s = this.status[pos % this.size];
      if (s === FAILED && !this.skips(pos)) throw this.errorAt(pos);
      if (s !== DONE && s !== FAILED) left++;
    }
    return left;
  }

  /** Resolve once every position in [from, to) is loaded (no await when they already are). */
  ready(from: number, to: number): Promise<void> | undefined {
    const left = this.missing(from, to);
    if (left === 0) return undefined;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => finish(abortReason(this.signal), true);
      const finish = (error: unknown, failed: boolean) => {
        this.wake = undefined;
        this.fail = undefined;
        this.signal.removeEventListener('abort', onAbort);
        if (failed) reject(error);
        else resolve();
      };
      this.waitFrom = from;
      this.waitTo = to;
      this.waitLeft = left;
      this.wake = () => finish(undefined, false);
      this.fail = (e) => finish(e, true);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Move positions [from, to) into `out` (skipped failures left out) and free their slots. */
  take(from: number, to: number, out: T[]): void {
    out.length = to - from;
    let n = 0;
    for (let pos = from; pos < to; pos++) {
      const slot = pos % this.size;
      if (this.status[slot] === FAILED) {
        this.failures?.skipped(this.indexAt(pos), this.errorAt(pos));
        this.errors[slot] = undefined;
      } else out[n++] = this.values[slot] as T;
      this.values[slot] = undefined;
      this.status[slot] = EMPTY;
    }
    if (n < out.length) out.length = n;
  }
}
