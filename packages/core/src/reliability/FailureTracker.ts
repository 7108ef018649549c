import type { Dataset } from '../dataset/Dataset.js';
import { type EpochPlan, planWithout } from '../plan/EpochPlan.js';
import { type Clock, systemClock } from '../util/Clock.js';
import { clock as checkClock, func, showValue, withDefault } from '../util/validate.js';
import {
  type ErrorPolicy,
  failureOf,
  isFatal,
  QuarantinedError,
  type ResolvedErrorPolicy,
  resolveErrorPolicy,
  SampleFailedError,
  type SampleFailure,
  withErrorPolicy,
} from './errorPolicy.js';
import { Quarantine } from './Quarantine.js';

/** The failure options of a DataLoader (see `DataLoaderOptions`). */
export interface FailureOptions {
  onError?: ErrorPolicy;
  onSampleError?: (failure: SampleFailure) => void;
  quarantine?: Quarantine | false;
  clock?: Clock;
}

/**
 * A DataLoader's failure handling: applies the `onError` policy to the
 * dataset (retries, quarantine), keeps the current epoch's failures, feeds
 * the quarantine and drops quarantined indices from the plan. Internal.
 */
export class FailureTracker {
  readonly policy: ResolvedErrorPolicy;
  readonly quarantine: Quarantine | undefined;
  readonly failures: SampleFailure[] = [];
  private readonly onSampleError: ((failure: SampleFailure) => void) | undefined;
  private readonly clock: Clock;

  constructor(options: FailureOptions) {
    this.policy = resolveErrorPolicy(options.onError);
    if (options.onSampleError !== undefined) func('onSampleError', options.onSampleError);
    this.onSampleError = options.onSampleError;
    const q = options.quarantine;
    if (q !== undefined && q !== false && !(q instanceof Quarantine)) {
      throw new TypeError(`quarantine must be a Quarantine or false, got ${showValue(q)}`);
    }
    // Retrying policies quarantine what fails every retry, in memory unless told otherwise.
    this.quarantine =
      q === false ? undefined : (q ?? (this.policy.retries > 0 ? new Quarantine() : undefined));
    this.clock = withDefault('clock', options.clock, systemClock, checkClock);
  }

  /** Start (or resume) an epoch: waits for the stored quarantine list. */
  async begin(fresh: boolean): Promise<void> {
    if (fresh) this.failures.length = 0;
    await this.quarantine?.ready;
  }

  /** The dataset the window reads: retries and quarantine applied. */
  wrap<T>(dataset: Dataset<T>): Dataset<T> {
    return withErrorPolicy(dataset, this.policy, this.clock, this.quarantine);
  }

  /** The plan to hand the dataset: the order without quarantined indices (O(quarantine) memory). */
  plan(order: EpochPlan): EpochPlan {
    const q = this.quarantine;
    if (q === undefined || q.size === 0) return order;
    return planWithout(order, new Set(q.indices()));
  }

  /** `indices` without those that failed since failure number `since` (the batch's samples). */
  kept(indices: Uint32Array, since: number): Uint32Array {
    const f = this.failures;
    if (f.length === since) return indices;
    const out = new Uint32Array(indices.length - (f.length - since));
    let j = 0;
    outer: for (let i = 0; i < indices.length; i++) {
      for (let k = since; k < f.length; k++) if (f[k]!.index === indices[i]) continue outer;
      out[j++] = indices[i]!;
    }
    return out;
  }

  /** Whether a failure is absorbed (the sample skipped) rather than ending the epoch. */
  readonly skips = (error: unknown): boolean =>
    error instanceof QuarantinedError || (this.policy.skip && !isFatal(error));

  /** A sample of the epoch was skipped. */
  readonly skipped = (index: number, error: unknown): void => {
    this.record(failureOf(index, error));
    // it failed every attempt the policy allows (one, for 'skip')
    if (!(error instanceof QuarantinedError)) this.quarantine?.add(index);
  };

  /** The epoch ends with `error`: report it when it is about one sample. */
  fatal(error: unknown): void {
    const index = (error as { index?: unknown } | null)?.index;
    if (typeof index !== 'number' || isFatal(error)) return;
    this.record(failureOf(index, error));
    if (error instanceof SampleFailedError) this.quarantine?.add(index);
  }

  private record(failure: SampleFailure): void {
    this.failures.push(failure);
    this.onSampleError?.(failure);
  }
}
