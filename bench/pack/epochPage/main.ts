// Runs in Chromium (driven by bench/pack/epochChromium.ts): one rank's shuffled epoch of the
// epoch-1M row, read as bench/pack/epochRead.ts says (the code the Node ranks run), the
// memory the page's JS heap (performance.memory, precise with --enable-precise-memory-info),
// and every sample of the data set counted in a table of one slot per sample.
import { countIds, type EpochReadReport, missingAndTwice, readEpoch } from '../epochRead.js';

/** What the Node driver passes in. */
export interface EpochPageConfig {
  /** The manifest's URL (on the shards' server, another origin). */
  manifestUrl: string;
  /** Samples of the data set. */
  count: number;
  rank: number;
  worldSize: number;
}

/** The page's report: the rank's figures and the counts of samples missed and read twice. */
export interface EpochPageResult extends EpochReadReport {
  /** Samples of the data set this rank did not read (all but its part when worldSize > 1). */
  missing: number;
  twice: number;
}

/** The page's JS heap in use, bytes (Chromium only). */
const heap = () =>
  (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize;

declare global {
  interface Window {
    runEpoch(cfg: EpochPageConfig): Promise<EpochPageResult>;
  }
}

window.runEpoch = async (cfg) => {
  const seen = new Uint8Array(cfg.count);
  const { report, ids } = await readEpoch(cfg.manifestUrl, cfg.rank, cfg.worldSize, heap);
  countIds(seen, ids);
  return { ...report, ...missingAndTwice(seen) };
};
(document.getElementById('status') as HTMLElement).textContent = 'ready';
