// formatCacheReport names the limiting stage with diagnose()'s verdict (issue 15, item 3):
// the printed bottleneck and advice are the structured diagnosis, never a second opinion.
import {
  createCachedDataset,
  DataLoader,
  diagnose,
  formatCacheReport,
  fromArray,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('formatCacheReport and diagnose agree', () => {
  it('prints the bottleneck, its evidence and the recommendation diagnose() gives', async () => {
    const ds = createCachedDataset(fromArray(Array.from({ length: 200 }, (_, i) => ({ x: i }))), {
      cacheType: 'both',
      cacheSize: 20,
      prefetchSize: 8,
      numWorkers: 4,
    });
    const loader = new DataLoader(ds, { batchSize: 10, shuffle: true, seed: 3 });
    for (let e = 0; e < 2; e++) for await (const _ of loader);
    const stats = ds.getCacheStats();
    const d = diagnose(stats);
    const report = formatCacheReport(stats);
    expect(report).toContain(`bottleneck: ${d.bottleneck} (${d.evidence})`);
    if (d.recommendation !== undefined) expect(report).toContain(`try: ${d.recommendation}`);
    else expect(report).not.toContain('try: ');
    await ds.close();
  });

  it('prints no bottleneck before any read', async () => {
    const ds = createCachedDataset(fromArray([1, 2, 3]), { cacheType: 'both', numWorkers: 2 });
    expect(formatCacheReport(ds.getCacheStats())).not.toContain('bottleneck:');
    await ds.close();
  });
});
