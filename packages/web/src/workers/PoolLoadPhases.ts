import type { LoadPhaseStats } from '@medfusion/core';

/**
 * The load phases of a worker pool: each worker reports its loader's cumulative
 * times with every reply; this keeps the latest report per worker and what dead
 * workers had reported, and sums them. Internal to `createWorkerExecutor`.
 */
export class PoolLoadPhases {
  private readonly latest = new Map<number, LoadPhaseStats>();
  private retiredLoads = 0;
  private retiredSourceMs = 0;
  private retiredDecodeMs = 0;

  /** Keep worker `slotId`'s latest report; anything that is not a report is ignored. */
  report(slotId: number, phases: unknown): void {
    if (isReport(phases)) this.latest.set(slotId, phases);
  }

  /** Worker `slotId` died: its last report stays in the totals. */
  retire(slotId: number): void {
    const last = this.latest.get(slotId);
    if (last === undefined) return;
    this.latest.delete(slotId);
    this.retiredLoads += last.loads;
    this.retiredSourceMs += last.sourceMs;
    this.retiredDecodeMs += last.decodeMs;
  }

  /** The pool's totals over `threads` live workers; undefined while no worker has reported. */
  total(threads: number): LoadPhaseStats | undefined {
    let loads = this.retiredLoads;
    let sourceMs = this.retiredSourceMs;
    let decodeMs = this.retiredDecodeMs;
    for (const p of this.latest.values()) {
      loads += p.loads;
      sourceMs += p.sourceMs;
      decodeMs += p.decodeMs;
    }
    return loads === 0 ? undefined : { loads, sourceMs, decodeMs, threads };
  }
}

const finite = (x: unknown) => typeof x === 'number' && x >= 0 && x < Number.POSITIVE_INFINITY;

function isReport(x: unknown): x is LoadPhaseStats {
  if (x === null || typeof x !== 'object') return false;
  const p = x as Partial<LoadPhaseStats>;
  return finite(p.loads) && finite(p.sourceMs) && finite(p.decodeMs);
}
