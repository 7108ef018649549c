/** Load latency percentiles of the engine's recent loads (see `EngineStats.loadLatency`). */
export interface LoadLatencyStats {
  /** Loads measured in total (the percentiles cover the most recent ones). */
  count: number;
  /** Mean of the recent loads, in ms. */
  meanMs: number;
  /** Median of the recent loads, in ms. */
  p50Ms: number;
  /** 90th percentile of the recent loads, in ms. */
  p90Ms: number;
  /** 99th percentile of the recent loads, in ms. */
  p99Ms: number;
}

/**
 * The latencies of the last `capacity` successful loads (injected clock, ms),
 * in a ring buffer: recording allocates nothing. Percentiles sort a copy,
 * only when a stats snapshot asks. Internal to the caching engine and its
 * {@link AutoTuner}.
 */
export class LatencyWindow {
  /** Loads recorded in total. */
  count = 0;
  private readonly ring: Float64Array;

  constructor(capacity = 256) {
    this.ring = new Float64Array(capacity);
  }

  /** Record one load's latency. */
  record(ms: number): void {
    this.ring[this.count % this.ring.length] = Math.max(ms, 0);
    this.count++;
  }

  /** Mean latency of the last `n` loads (at most the window), or NaN when none. */
  recentMean(n: number): number {
    const k = Math.min(n, this.count, this.ring.length);
    if (k <= 0) return Number.NaN;
    let sum = 0;
    for (let i = 1; i <= k; i++) sum += this.ring[(this.count - i) % this.ring.length]!;
    return sum / k;
  }

  /** Percentiles of the loads in the window, undefined before the first load. */
  stats(): LoadLatencyStats | undefined {
    const k = Math.min(this.count, this.ring.length);
    if (k === 0) return undefined;
    const sorted = this.ring.slice(0, k).sort();
    const at = (q: number) => sorted[Math.min(k - 1, Math.floor(q * k))]!;
    let sum = 0;
    for (let i = 0; i < k; i++) sum += sorted[i]!;
    return { count: this.count, meanMs: sum / k, p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99) };
  }
}
