import { AutoTuner, type TuningStats } from './autotune/AutoTuner.js';
import { LatencyWindow } from './autotune/LatencyWindow.js';
import type { ResolvedEngineOptions } from './engineOptions.js';

/** The engine options the knobs start from. */
type TuningOptions = Pick<
  ResolvedEngineOptions<unknown>,
  | 'numWorkers'
  | 'prefetchSize'
  | 'autoNumWorkers'
  | 'autoPrefetchSize'
  | 'maxBytes'
  | 'cacheSize'
  | 'clock'
>;

/**
 * The engine's two knobs, `numWorkers` and `prefetchSize`: the options, or what
 * the autotuner sets when either is `'auto'`. Owns the load-latency window the
 * tuner reads, and tells the load runner each new `numWorkers`.
 */
export class EngineTuning {
  /** Loads in flight at most (the option, or what the autotuner set). */
  numWorkers: number;
  /** Prefetch depth in force (the option, or what the autotuner set). */
  prefetchSize: number;
  /** Latencies of finished loads. */
  readonly latencies = new LatencyWindow();
  /** The controller of `'auto'` knobs, when any knob is `'auto'`. */
  private readonly tuner: AutoTuner | undefined;

  constructor(o: TuningOptions, runner: { setNumWorkers(n: number): void }) {
    this.numWorkers = o.numWorkers;
    this.prefetchSize = o.prefetchSize;
    this.tuner =
      o.autoNumWorkers || o.autoPrefetchSize
        ? new AutoTuner(
            o.clock,
            {
              setNumWorkers: (n) => {
                this.numWorkers = n;
                runner.setNumWorkers(n);
              },
              setPrefetchSize: (n) => {
                this.prefetchSize = n;
              },
            },
            {
              tuneNumWorkers: o.autoNumWorkers,
              tunePrefetchSize: o.autoPrefetchSize,
              numWorkers: o.numWorkers,
              prefetchSize: o.prefetchSize,
              maxBytes: o.maxBytes,
              cacheSize: o.cacheSize,
            },
          )
        : undefined;
  }

  /** A read happened (`hit` or not); the autotuner, if any, may turn a knob. */
  read(hit: boolean, stallMs: number, avgBytes: number): void {
    this.tuner?.read(hit, stallMs, avgBytes);
  }

  /**
   * A load finished after `latencyMs` (`fromDisk`: a disk tier below served
   * it): recorded in the latency window; the autotuner, if any, may turn a
   * knob (it decides on finished loads too, so a reader whose look-ahead is
   * full and waiting does not freeze it).
   */
  loaded(latencyMs: number, fromDisk: boolean, stallMs: number, avgBytes: number): void {
    this.latencies.record(latencyMs);
    this.tuner?.loaded(latencyMs, fromDisk, stallMs, avgBytes);
  }

  /** The knobs in force and, when tuned, what the tuner measured. */
  stats(): TuningStats {
    return (
      this.tuner?.stats() ?? {
        numWorkers: this.numWorkers,
        prefetchSize: this.prefetchSize,
        autoNumWorkers: false,
        autoPrefetchSize: false,
        latencyEstimateMs: undefined,
        demandPerSec: undefined,
      }
    );
  }
}
