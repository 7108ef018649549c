import { formatCacheReport } from '@medfusion/web';
import { mib, num, pct } from './format.js';
import type { Strategy } from './settings.js';
import { type PipelineStats, tierRates } from './stats.js';

/** What the advice needs besides the stats. */
export interface AdviceContext {
  /** The epoch that just ended (from 1). */
  epoch: number;
  /** Samples per epoch. */
  length: number;
  /** The strategy in use. */
  strategy: Strategy;
}

/** Plain words for a person, and the library's report behind them. */
export interface Advice {
  /** One or two sentences about the epoch that ended. */
  text: string;
  /** `formatCacheReport` of the cumulative stats (memory / disk / source split). */
  report: string;
}

/**
 * Advice after a completed epoch, only when there is evidence: from epoch 2
 * on (the first epoch reads every sample for the first time, so no cache can
 * hit), never for a partial epoch (the caller does not ask after Stop), never
 * advising what is already on.
 */
export function adviceFor(
  now: PipelineStats,
  epochStart: PipelineStats,
  ctx: AdviceContext,
): Advice | undefined {
  if (ctx.epoch < 2) return undefined;
  const report = formatCacheReport(now.engine);
  const epoch = tierRates(now, epochStart);
  const disk = ctx.strategy === 'both-disk';
  const downs = now.diskReads - epochStart.diskReads + now.diskMisses - epochStart.diskMisses;
  const diskLine = disk
    ? ` The disk tier served ${pct(epoch.disk)} of the ${num(downs)} memory misses, so they did not wait for the network.`
    : '';
  if (now.cacheCapacity === 0) {
    const text = disk
      ? `No memory cache: every read goes to the disk tier or the network.${diskLine}`
      : `No memory cache (strategy "${ctx.strategy}"): every epoch loads every sample from the network again. ` +
        'Strategy "both" keeps samples in memory, "both + disk" also keeps them across visits.';
    return { text, report };
  }
  const memory = `In epoch ${ctx.epoch}, ${pct(epoch.memory)} of reads came from memory`;
  if (epoch.memory >= 0.7)
    return { text: `${memory}: the memory cache is working.${diskLine}`, report };
  const perSample = now.cacheSize > 0 ? now.cacheBytes / now.cacheSize : 0;
  const room =
    now.cacheCapacity < ctx.length
      ? ` It holds ${num(now.cacheCapacity)} of ${num(ctx.length)} samples, and a shuffled order reads ` +
        'most samples once per epoch, so most reads miss it.'
      : '';
  const grow =
    now.cacheCapacity < ctx.length && perSample > 0
      ? ` A memory cache of ${num(ctx.length)} samples (about ${mib(perSample * ctx.length)}) would hold them all.`
      : '';
  const addDisk = disk
    ? ''
    : ' Strategy "both + disk" would read the misses from disk instead of the network.';
  return { text: `${memory}.${room}${grow}${diskLine}${addDisk}`, report };
}
