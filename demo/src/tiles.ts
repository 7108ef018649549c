// The page's tiles and origin line: what the training worker reported, as text
// for a person and as raw numbers in data attributes for tools.

import type { Diagnosis } from '@medfusion/web';
import { mib, num, pct } from './format.js';
import { type DiskUsage, type PipelineStats, tierRates } from './stats.js';

/** Show a statistic: readable text, and the raw number in `data-value` for tools. */
export function stat(name: string, text: string, value: number, title = text): HTMLElement | null {
  const el = document.querySelector<HTMLElement>(`[data-stat="${name}"]`);
  if (!el) return null;
  el.textContent = text;
  el.title = title;
  el.dataset.value = String(value);
  return el;
}

/** Range requests and bytes of the shards source ("off" for the CSV source). */
export function showShards(s: PipelineStats): void {
  if (!s.shards) {
    const el = stat('shards', 'off', 0);
    if (el) el.dataset.bytes = '0';
    return;
  }
  const { rangeRequests, bytesRead } = s.shards;
  const text = `${num(rangeRequests)} · ${mib(bytesRead)}`;
  const el = stat(
    'shards',
    text,
    rangeRequests,
    `${num(rangeRequests)} range requests, ${mib(bytesRead)}`,
  );
  if (el) el.dataset.bytes = String(bytesRead);
}

export function showOrigin(s: PipelineStats): void {
  const origin = document.querySelector<HTMLElement>('#origin');
  if (!origin) return;
  const memory = Math.max(0, s.delivered - s.networkLoads - s.diskReads);
  origin.textContent =
    `Samples came from: network ${num(s.networkLoads)} · disk ${num(s.diskReads)} · ` +
    `memory ${num(memory)} (${num(s.delivered)} delivered to training` +
    `${s.networkErrors ? `, ${num(s.networkErrors)} network failures` : ''})`;
  origin.dataset.network = String(s.networkLoads);
  origin.dataset.disk = String(s.diskReads);
  origin.dataset.memory = String(memory);
  origin.dataset.delivered = String(s.delivered);
  origin.dataset.networkErrors = String(s.networkErrors);
}

/** Hit rates of this epoch beside the whole run's. */
export function showRates(
  s: PipelineStats,
  epochStart: PipelineStats | undefined,
  disk: boolean,
): { memory: number; disk: number } {
  const epoch = tierRates(s, epochStart);
  const all = tierRates(s);
  if (s.cacheCapacity === 0) stat('memoryHitRate', 'no cache', 0);
  else {
    const el = stat('memoryHitRate', `${pct(epoch.memory)} · ${pct(all.memory)}`, all.memory);
    if (el) el.dataset.epoch = String(epoch.memory);
  }
  if (!disk) stat('diskHitRate', 'off', 0);
  else {
    const el = stat('diskHitRate', `${pct(epoch.disk)} · ${pct(all.disk)}`, all.disk);
    if (el) el.dataset.epoch = String(epoch.disk);
  }
  return epoch;
}

export function showDisk(usage: DiskUsage | undefined, length: number): void {
  if (!usage) {
    stat('disk', 'off', 0);
    return;
  }
  const el = stat(
    'disk',
    `${num(usage.entries)} of ${num(length)}`,
    usage.entries,
    `${num(usage.entries)} of this data set's ${num(length)} samples on disk (${usage.backend}); ` +
      `the store holds ${num(usage.storeEntries)} entries, ${mib(usage.storeBytes)}, for every data set`,
  );
  if (el) el.dataset.backend = usage.backend;
}

/** Plain words for the stages `diagnose` names. */
const STAGES: Record<Diagnosis['bottleneck'], string> = {
  none: 'none yet',
  consumer: 'the training step (data keeps up)',
  'source-latency': 'source latency',
  'decode-cpu': 'decoding (CPU)',
  disk: 'the disk tier',
  'memory-budget': 'the memory budget',
  'cache-size': 'the cache size',
};

/**
 * The live bottleneck line: the stage `diagnose` names, the number that shows
 * it, the one change to try, and the knobs autotune has set (or that were given).
 */
export function showBottleneck(
  d: Pick<Diagnosis, 'bottleneck' | 'evidence' | 'recommendation' | 'stallShare'>,
  s: PipelineStats,
): void {
  const el = document.querySelector<HTMLElement>('#bottleneck');
  if (!el) return;
  const t = s.engine.tuning;
  const knobs =
    t === undefined
      ? ''
      : ` · ${t.autoNumWorkers ? 'autotune: ' : ''}${num(t.numWorkers)} loads in flight, ` +
        `prefetch ${num(t.prefetchSize)}${t.autoPrefetchSize && !t.autoNumWorkers ? ' (auto)' : ''}`;
  el.textContent =
    `Bottleneck: ${STAGES[d.bottleneck]} — ${d.evidence}.` +
    `${d.recommendation ? ` Try: ${d.recommendation}.` : ''}${knobs}`;
  el.dataset.stage = d.bottleneck;
  el.dataset.stall = String(d.stallShare ?? '');
  el.dataset.auto = String(t?.autoNumWorkers === true && t.autoPrefetchSize);
  el.dataset.numWorkers = String(t?.numWorkers ?? '');
  el.dataset.prefetchSize = String(t?.prefetchSize ?? '');
}
