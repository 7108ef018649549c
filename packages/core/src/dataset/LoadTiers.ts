/** Told, as each load of a tiered dataset succeeds, whether its fast tier (a disk) served it. */
export type LoadTierListener = (index: number, fromDisk: boolean) => void;

/**
 * A dataset over tiers of different speed (a disk tier over a source) that
 * says which tier served each load. The caching engine listens, so its
 * autotuner measures disk hits and source loads apart: a window mixing 0.3 ms
 * disk hits with 10 ms source loads averages to neither.
 */
export interface ReportsLoadTiers {
  /** Call `listener` as each load succeeds, before its promise settles (one listener: the last given). */
  reportLoadTiers(listener: LoadTierListener): void;
}

/** True when `x` says which tier served its loads (has a `reportLoadTiers()` method). */
export function reportsLoadTiers(x: unknown): x is ReportsLoadTiers {
  return (
    x !== null &&
    typeof x === 'object' &&
    typeof (x as Partial<ReportsLoadTiers>).reportLoadTiers === 'function'
  );
}
