import { formatCacheReport, recommendCacheSize } from '@medfusion/web';
import type { PipelineStats } from './pipeline.js';
import type { Strategy } from './settings.js';

/** What the advice needs besides the stats. */
export interface AdviceContext {
  /** Samples per epoch. */
  length: number;
  /** Batch size. */
  batchSize: number;
  /** The strategy in use. */
  strategy: Strategy;
}

/**
 * The reference's monitoring advice (SEED.md) after an epoch: when the memory
 * hit rate is below 30 %, core's cache report (which says why and what to
 * change) plus the reference's cache size for this data set; with the disk
 * tier on, what the disk served too. Nothing when the cache works.
 */
export function adviceFor(s: PipelineStats, ctx: AdviceContext): string | undefined {
  if (ctx.strategy === 'none' || ctx.strategy === 'prefetch') return undefined;
  if (s.memoryHitRate >= 0.3) return undefined;
  const lines = [formatCacheReport(s.engine)];
  lines.push(
    `The reference's cache size for ${ctx.length} samples at batch ${ctx.batchSize}: ` +
      `${recommendCacheSize(ctx.length, ctx.batchSize)}.`,
  );
  if (ctx.strategy === 'both-disk') {
    lines.push(
      `The disk tier served ${(s.diskHitRate * 100).toFixed(1)} % of samples: memory misses ` +
        'after the first epoch are read from disk, not the network.',
    );
  }
  return lines.join('\n');
}
