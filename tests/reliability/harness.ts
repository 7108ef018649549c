// Shared pieces of the reliability suite: seeded randomness, fault-injecting
// datasets, a bound on every scenario, and the rows of the summary table that
// `pnpm test:reliability` prints (tests/reliability/summaryReporter.ts).
import type { Dataset, GetOptions, ManualClock } from '@medfusion/core';
import { inject } from 'vitest';

/** One row of the reliability summary table. */
export interface ReliabilityRow {
  /** Scenario family, e.g. 'bad samples'. */
  scenario: string;
  /** The case within it, e.g. 'both / 10 % / retry'. */
  case: string;
  /** Figures to print, e.g. { planned: 1000, delivered: 900, failures: 100 }. */
  figures: Record<string, number | string>;
}

/** Attach a summary row to the running test (read by the summary reporter). */
export function report(task: { meta: object }, row: ReliabilityRow): void {
  const meta = task.meta as { reliability?: ReliabilityRow[] };
  if (meta.reliability === undefined) meta.reliability = [];
  meta.reliability.push(row);
}

/** mulberry32: a small seeded PRNG in [0, 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The bound of {@link bounded} for work whose claim is not about time (a damaged record read,
 * a bad index refused): it must settle rather than hang. Far above what a loaded machine takes
 * (milliseconds to a few seconds) and below the test timeout (60 s). A bound that tells two
 * behaviours apart by time is set from the configured timeout or a baseline measured in the
 * same test instead.
 */
export const HANG_MS = 30_000;

/**
 * Run `work` and fail if it does not settle within `ms` of real time: no
 * scenario may wait without a bound. Returns the work's result and its time.
 */
export async function bounded<T>(label: string, ms: number, work: () => Promise<T>) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = performance.now();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} did not finish within ${ms} ms`)), ms);
  });
  try {
    const value = await Promise.race([work(), timeout]);
    return { value, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Run `work`, which must fail within `ms` of real time (see {@link bounded}):
 * returns the error it failed with and the time it took.
 */
export async function failsWithin<E = Error>(
  label: string,
  ms: number,
  work: () => Promise<unknown>,
): Promise<{ error: E; ms: number }> {
  const result = await bounded(label, ms, async () => {
    try {
      await work();
    } catch (error) {
      return error as E;
    }
    throw new Error(`${label} did not fail`);
  });
  return { error: result.value, ms: result.ms };
}

/**
 * `<sample server>/h/<mode>/<file>`: `file` from the sample server's endpoint
 * that misbehaves as `mode` ('ok', 'stall-headers', 'spa', …; browser tests).
 */
export function hostileUrl(mode: string, file: string): string {
  return `${inject('sampleServer')}/h/${mode}/${file}`;
}

/**
 * Drive a ManualClock while `work` runs: time jumps to each next timer, so
 * backoff waits and timeouts cost no real time. Returns the work's result.
 */
export async function driveClock<T>(clock: ManualClock, work: Promise<T>, stepMs = 10) {
  let done = false;
  const result = work.finally(() => {
    done = true;
  });
  result.catch(() => {}); // handled by the caller, after the loop

  while (!done) {
    await clock.advance(stepMs);
    await new Promise((r) => setTimeout(r, 0));
  }
  return result;
}

/** The sample every faulty dataset returns: its index, and bytes derived from it. */
export interface Sample {
  index: number;
  pixels: Uint8Array;
}

/** The bytes sample `index` must carry (checked on delivery: nothing corrupt). */
export function pixelsOf(index: number, size = 16): Uint8Array {
  const p = new Uint8Array(size);
  for (let i = 0; i < size; i++) p[i] = (index * 31 + i * 7) & 0xff;
  return p;
}

/** True when `s` is exactly sample `index`. */
export function intact(s: Sample, index: number): boolean {
  if (s.index !== index) return false;
  const want = pixelsOf(index, s.pixels.length);
  for (let i = 0; i < want.length; i++) if (s.pixels[i] !== want[i]) return false;
  return true;
}

/** A loader error, as a real source would throw (network, decode). */
export class InjectedFault extends Error {
  constructor(
    readonly index: number,
    readonly attempt: number,
  ) {
    super(`injected fault loading sample ${index} (attempt ${attempt})`);
    this.name = 'InjectedFault';
  }
}

/** Options of {@link faultyDataset}. */
export interface FaultOptions {
  length: number;
  /** Indices that fail on every attempt. */
  bad?: ReadonlySet<number>;
  /** Indices that fail on their first `transientFailures` attempts, then load. */
  flaky?: ReadonlySet<number>;
  /** @default 1 */
  transientFailures?: number;
  /** Bytes per sample. @default 16 */
  sampleBytes?: number;
  /** Async (a microtask) or sync loads. @default true */
  async?: boolean;
}

/** A scripted source with injected failures that counts every load per index. */
export function faultyDataset(opts: FaultOptions) {
  const loads = new Uint32Array(opts.length);
  const size = opts.sampleBytes ?? 16;
  const transient = opts.transientFailures ?? 1;
  let inFlight = 0;
  let maxInFlight = 0;
  const load = (index: number): Sample => {
    const attempt = ++loads[index]!;
    if (opts.bad?.has(index)) throw new InjectedFault(index, attempt);
    if (opts.flaky?.has(index) && attempt <= transient) throw new InjectedFault(index, attempt);
    return { index, pixels: pixelsOf(index, size) };
  };
  const dataset: Dataset<Sample> = {
    length: opts.length,
    get(index: number, _opts?: GetOptions) {
      if (opts.async === false) return load(index);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return Promise.resolve().then(() => {
        inFlight--;
        return load(index);
      });
    },
  };
  return {
    dataset,
    loads,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

/** `count` distinct indices in [0, length), seeded. */
export function pick(length: number, count: number, random: () => number): Set<number> {
  const out = new Set<number>();
  while (out.size < count) out.add(Math.floor(random() * length));
  return out;
}
