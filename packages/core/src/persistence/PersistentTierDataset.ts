import type { Dataset, GetOptions, PlanAware } from '../dataset/Dataset.js';
import { isPlanAware } from '../dataset/Dataset.js';
import type { LoadTierListener, ReportsLoadTiers } from '../dataset/LoadTiers.js';
import { FlightWaits, LoadFlight } from '../dataset/loadFlight.js';
import { describe } from '../errors.js';
import type { PlanInput } from '../plan/EpochPlan.js';
import { throwIfAborted } from '../util/abort.js';
import { type Clock, systemClock } from '../util/Clock.js';
import {
  clock as checkClock,
  index as checkIndex,
  fn,
  func,
  object,
  showValue,
  withDefault,
} from '../util/validate.js';
import type { PersistentStore } from './PersistentStore.js';
import { checkPersistentStore, isQuotaError } from './storeChecks.js';
import {
  type DatasetFingerprint,
  resolveCodec,
  resolveFingerprint,
  type SampleCodec,
} from './tierOptions.js';
import { WriteBehindQueue, type WriteBehindQueueOptions } from './writeBehindQueue.js';

export type { DatasetFingerprint, SampleCodec } from './tierOptions.js';
export { resolveFingerprint } from './tierOptions.js';

/** Options of {@link PersistentTierDataset}. */
export interface PersistentTierOptions<T> {
  /** Where samples persist: an OpfsStore, IdbStore, MemoryStore, … */
  store: PersistentStore;
  /**
   * Key prefix that identifies the data set. A string is used as is. When
   * omitted it is derived from the source: its `fingerprint` string, else its
   * `name` and `version` properties, else only its length (weak: give one).
   * @example { name: 'chest-xray', version: 3 }
   */
  fingerprint?: string | DatasetFingerprint;
  /**
   * How samples become bytes.
   * @default encodeSample / decodeSample (objects, arrays, typed arrays, numbers, strings)
   */
  codec?: SampleCodec<T>;
  /** Bounds of the write-behind queue (disk writes happen off the critical path). */
  writeQueue?: WriteBehindQueueOptions;
  /** Called for each disk error (read, write, corrupt entry) — a quarantine hook. */
  onDiskError?: (error: unknown, key: string) => void;
  /**
   * Time source of the write-behind queue's `delayMs` (inject a ManualClock in tests).
   * @default systemClock
   */
  clock?: Clock;
}

/** Counters of the disk tier. */
export interface DiskTierStats {
  /** Samples served from the store. */
  diskHits: number;
  /** Samples loaded from the source (not in the store). */
  misses: number;
  /** Store reads that failed or returned undecodable bytes (then served from the source). */
  diskErrors: number;
  /** Samples written to the store. */
  diskWrites: number;
  /** Writes not done because the queue was full or the tier disabled. */
  writesDropped: number;
  /** Writes that failed. */
  writeErrors: number;
  /** Writes waiting in the write-behind queue. */
  pendingWrites: number;
  /** True once writes stopped (e.g. the quota ran out); training goes on without them. */
  diskDisabled: boolean;
  /** Why writes stopped, e.g. `'QUOTA_EXCEEDED: …'`. */
  diskDisabledReason?: string;
  /** The key prefix in use. */
  fingerprint: string;
}

/**
 * The disk tier as a {@link Dataset}: `get(i)` reads sample `i` from a
 * {@link PersistentStore}, else loads it from the source and writes it to
 * the store behind the caller's back (bounded write-behind queue). Put a
 * memory cache above it for the full memory → disk → source chain:
 * `TieredCachedDataset` does, and `createCachedDataset` builds one when
 * given `store` (or `cacheDir` in `@medfusion/web`).
 *
 * Corrupt or undecodable entries are misses (the entry is deleted), never
 * bad samples. When the store reports `QuotaExceededError` the tier stops
 * writing and says so in {@link PersistentTierDataset.getDiskStats}.
 *
 * @example
 * const disk = new PersistentTierDataset(source, {
 *   store: new OpfsStore({ dir: 'xray', maxBytes: 2 ** 30 }),
 *   fingerprint: { name: 'xray', version: 1 },
 * });
 * const cached = new CachedDataset(disk, { cacheSize: 1000 });
 */
export class PersistentTierDataset<T> implements Dataset<T>, PlanAware, ReportsLoadTiers {
  /** Number of samples (the source's). */
  readonly length: number;
  /** The key prefix. */
  readonly fingerprint: string;
  private readonly store: PersistentStore;
  private readonly codec: SampleCodec<T>;
  private readonly queue: WriteBehindQueue;
  /** Loads in flight, one per index, shared by every caller that wants it. */
  private readonly flights = new Map<number, LoadFlight<T>>();
  private readonly waits: FlightWaits<T>;
  private readonly onDiskError: (error: unknown, key: string) => void;
  private counters = { diskHits: 0, misses: 0, diskErrors: 0 };
  /** Store reads in progress; queued writes wait until there are none. */
  private reading = 0;
  /**
   * Samples known to be in the store: its keys under this fingerprint (listed
   * once, at the first read) and every sample queued for writing since.
   */
  private readonly present = new Set<number>();
  /** Whether `present` holds the store's listing: a sample outside it is a known miss. */
  private listed = false;
  private listing: Promise<void> | undefined;
  private disabledReason: string | undefined;
  private droppedWhileDisabled = 0;
  /** Told which tier served each load (the caching engine above, for its autotuner). */
  private tierListener: LoadTierListener | undefined;

  constructor(
    private readonly source: Dataset<T>,
    options: PersistentTierOptions<T>,
  ) {
    if (source === null || typeof source !== 'object' || typeof source.get !== 'function') {
      throw new TypeError(`dataset must be a Dataset (length + get), got ${showValue(source)}`);
    }
    object('options', options, 'an object with a store');
    const store = checkPersistentStore('store', options.store);
    this.onDiskError = withDefault(
      'onDiskError',
      options.onDiskError,
      () => {},
      fn<(error: unknown, key: string) => void>,
    );
    this.length = source.length;
    this.store = store;
    this.codec = resolveCodec(options.codec);
    this.fingerprint = resolveFingerprint(options.fingerprint, source);
    const clock = withDefault('clock', options.clock, systemClock, checkClock);
    // unbounded waits (the memory tier above bounds its own); a load every caller left is aborted
    this.waits = new FlightWaits<T>(
      clock,
      Number.POSITIVE_INFINITY,
      () => {},
      (f, reason) => this.abandon(f, reason),
    );
    this.queue = new WriteBehindQueue(
      (k, v) => this.store.put(k, v),
      options.writeQueue,
      (err, key) => this.writeFailed(err, key),
      () => this.reading === 0, // write-behind yields to reads of the store
      clock,
    );
  }

  /** The store key of sample `index`. */
  keyOf(index: number): string {
    return `${this.fingerprint}/${index}`;
  }

  /**
   * Sample `index`: from the store when present and intact, else from the
   * source. Concurrent gets of one index share one load; a caller whose
   * signal aborts leaves at once, and the load stops when every caller left.
   */
  get(index: number, opts?: GetOptions): Promise<T> {
    checkIndex(index, this.length);
    const signal = opts?.signal;
    throwIfAborted(signal);
    let f = this.flights.get(index);
    if (f === undefined) {
      const flight = new LoadFlight<T>(index, false);
      const controller = new AbortController();
      flight.state = 'loading';
      flight.controller = controller;
      this.flights.set(index, flight);
      // the first caller's speculation goes on to the source (a prefetch stays one until promoted)
      const speculation = opts?.speculation;
      this.load(index, { signal: controller.signal, speculation }).then(
        (sample) => this.settle(flight, undefined, sample),
        (error: unknown) => this.settle(flight, error, undefined),
      );
      f = flight;
    }
    return this.waits.wait(f, signal);
  }

  private settle(f: LoadFlight<T>, error: unknown, sample: T | undefined): void {
    if (this.flights.get(f.key) === f) this.flights.delete(f.key);
    f.state = 'failed'; // settled: nothing to abort any more
    this.waits.settle(f, error, sample);
  }

  /** Every caller of `f` left before it settled: stop the load; the next caller starts afresh. */
  private abandon(f: LoadFlight<T>, reason: unknown): void {
    if (f.state !== 'loading') return;
    if (this.flights.get(f.key) === f) this.flights.delete(f.key);
    f.state = 'failed';
    f.controller?.abort(reason);
  }

  private async load(index: number, opts: GetOptions | undefined): Promise<T> {
    const signal = opts?.signal;
    const key = this.keyOf(index);
    let bytes: Uint8Array | undefined;
    this.listing ??= this.list();
    // A known miss goes straight to the source: no store round trip before the
    // load (in a cold epoch every read is one), no store read for writes to yield to.
    if (!this.listed || this.present.has(index)) {
      this.reading++;
      try {
        bytes = await this.store.get(key);
      } catch (err) {
        this.counters.diskErrors++;
        this.onDiskError(err, key);
      } finally {
        if (--this.reading === 0) this.queue.resume();
      }
    }
    if (bytes !== undefined) {
      try {
        const sample = this.codec.decode(bytes);
        this.counters.diskHits++;
        this.tierListener?.(index, true);
        return sample;
      } catch (err) {
        this.counters.diskErrors++;
        this.onDiskError(err, key);
        this.present.delete(index);
        this.store.delete(key).catch(() => {});
      }
    }
    throwIfAborted(signal);
    // the caller's options as given: its signal, and the speculation of a prefetch
    const sample = await this.source.get(index, opts);
    this.counters.misses++;
    this.tierListener?.(index, false);
    if (this.disabledReason === undefined) {
      let encoded: Uint8Array | undefined;
      try {
        encoded = this.codec.encode(sample);
      } catch (err) {
        this.counters.diskErrors++;
        this.onDiskError(err, key);
      }
      if (encoded) {
        this.present.add(index);
        this.queue.enqueue(key, encoded);
      }
    } else {
      this.droppedWhileDisabled++;
    }
    return sample;
  }

  /**
   * Learn which samples the store holds under this fingerprint (once). Until
   * then, and when listing fails, every read asks the store. A sample another
   * writer adds later is only missed (loaded from the source again), never wrong.
   */
  private async list(): Promise<void> {
    try {
      const prefix = `${this.fingerprint}/`;
      for (const key of await this.store.keys()) {
        if (!key.startsWith(prefix)) continue;
        const index = Number(key.slice(prefix.length));
        if (Number.isInteger(index)) this.present.add(index);
      }
      this.listed = true;
    } catch {
      // a store that cannot list is asked for every read
    }
  }

  private writeFailed(err: unknown, key: string): void {
    this.onDiskError(err, key);
    if (isQuotaError(err) && this.disabledReason === undefined) {
      this.disabledReason = `QUOTA_EXCEEDED: ${describe(err)}`;
      this.queue.discardPending();
    }
  }

  /** Pass the coming access order on to the source when it is plan-aware. */
  setPlan(order: PlanInput): void {
    if (isPlanAware(this.source)) this.source.setPlan(order);
  }

  /**
   * Call `listener` as each load succeeds, before its promise settles, with
   * whether the store served it (else the source did). The caching engine
   * above listens: its autotuner sizes loads in flight and the prefetch depth
   * for disk hits and source loads apart. One listener: the last given.
   */
  reportLoadTiers(listener: LoadTierListener): void {
    func('listener', listener);
    this.tierListener = listener;
  }

  /** Disk-tier counters: hits, misses, writes, and whether the tier is still writing. */
  getDiskStats(): DiskTierStats {
    const q = this.queue.stats();
    const s: DiskTierStats = {
      diskHits: this.counters.diskHits,
      misses: this.counters.misses,
      diskErrors: this.counters.diskErrors,
      diskWrites: q.written,
      writesDropped: q.dropped + this.droppedWhileDisabled,
      writeErrors: q.failed,
      pendingWrites: q.pending,
      diskDisabled: this.disabledReason !== undefined,
      fingerprint: this.fingerprint,
    };
    if (this.disabledReason !== undefined) s.diskDisabledReason = this.disabledReason;
    return s;
  }

  /** Reset the hit/miss counters (not the stored data). */
  resetDiskStats(): void {
    this.counters = { diskHits: 0, misses: 0, diskErrors: 0 };
  }

  /** Wait until every queued disk write has settled. */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  /**
   * Finish the queued writes and stop writing. The store is not closed (it
   * belongs to whoever made it).
   */
  async close(): Promise<void> {
    await this.queue.close();
  }
}
