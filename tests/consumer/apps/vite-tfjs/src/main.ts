// The page: trains through the shared pipeline and publishes what it saw.
import type { TieredCacheStats } from '@medfusion/web';
import { report, train } from './pipeline.js';

report(async () => {
  const result = await train();
  const epochs: number = result.losses.length;
  const disk: TieredCacheStats['diskHits'] = result.diskHitsPerEpoch.at(-1) ?? 0;
  return { ...result, epochs, lastEpochDiskHits: disk };
});
