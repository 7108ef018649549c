/**
 * Where a loader's loads spent their time, cumulative since it was made: waiting
 * for a sample's bytes (the source) and turning them into the sample (decode,
 * CPU on the loading thread). {@link diagnose} reads it to tell decode CPU from
 * source latency, which the engine's load latency alone cannot.
 */
export interface LoadPhaseStats {
  /** Loads measured. */
  loads: number;
  /** Time spent waiting for samples' bytes (request, download, disk read), in ms. */
  sourceMs: number;
  /** Time spent decoding bytes into samples (CPU on the loading thread), in ms. */
  decodeMs: number;
  /** Threads the loads ran on: 1 on this thread, the live workers of a pool. */
  threads: number;
}

/**
 * A dataset or executor that reports where its loads spend their time. The
 * caching engines put it in their stats (`EngineStats.loadPhases`): the
 * executor's report when it has one (a worker pool sums its workers'), else
 * the dataset's.
 *
 * @example
 * class MySource implements Dataset<Uint8Array>, ReportsLoadPhases {
 *   readonly length = 100;
 *   private readonly phases = new LoadPhaseCounter();
 *   async get(index: number): Promise<Uint8Array> {
 *     const t0 = performance.now();
 *     const bytes = new Uint8Array(await (await fetch(`/data/${index}.bin`)).arrayBuffer());
 *     const t1 = performance.now();
 *     const sample = bytes.map((b) => 255 - b); // the decode
 *     this.phases.record(t1 - t0, performance.now() - t1);
 *     return sample;
 *   }
 *   loadPhases() { return this.phases.snapshot(); }
 * }
 */
export interface ReportsLoadPhases {
  /** The cumulative phase times, or undefined while nothing has been measured. */
  loadPhases(): LoadPhaseStats | undefined;
}

/** True when `x` reports its load phases (has a `loadPhases()` method). */
export function reportsLoadPhases(x: unknown): x is ReportsLoadPhases {
  return (
    x !== null &&
    typeof x === 'object' &&
    typeof (x as Partial<ReportsLoadPhases>).loadPhases === 'function'
  );
}

/**
 * The first defined report among `sources` that report their load phases (an
 * executor before the dataset it loads for); undefined when none does.
 */
export function loadPhasesOf(...sources: unknown[]): LoadPhaseStats | undefined {
  for (const s of sources) {
    const phases = reportsLoadPhases(s) ? s.loadPhases() : undefined;
    if (phases !== undefined) return phases;
  }
  return undefined;
}

/**
 * Adds up a loader's phase times; recording allocates nothing. A negative or
 * non-finite duration counts as 0 (a clock that stepped back).
 *
 * @example
 * const phases = new LoadPhaseCounter();
 * const t0 = performance.now();
 * const bytes = await (await fetch(url)).arrayBuffer();
 * const t1 = performance.now();
 * const sample = decode(bytes);
 * phases.record(t1 - t0, performance.now() - t1);
 */
export class LoadPhaseCounter {
  /** Loads recorded. */
  loads = 0;
  /** Sum of the source waits, ms. */
  sourceMs = 0;
  /** Sum of the decode times, ms. */
  decodeMs = 0;

  /** Record one load: `sourceMs` waiting for its bytes, `decodeMs` decoding them. */
  record(sourceMs: number, decodeMs: number): void {
    this.loads++;
    this.sourceMs += sourceMs > 0 && sourceMs < Number.POSITIVE_INFINITY ? sourceMs : 0;
    this.decodeMs += decodeMs > 0 && decodeMs < Number.POSITIVE_INFINITY ? decodeMs : 0;
  }

  /** The totals so far, as loads on `threads` threads; undefined before the first load. */
  snapshot(threads = 1): LoadPhaseStats | undefined {
    if (this.loads === 0) return undefined;
    return { loads: this.loads, sourceMs: this.sourceMs, decodeMs: this.decodeMs, threads };
  }
}
