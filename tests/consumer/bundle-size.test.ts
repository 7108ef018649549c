// Issue 13, 3: what an app pays for typical imports stays within the budgets of
// `pnpm bench size` (bench/size.ts, figures of the built dist/ as an app bundles
// them), and tree-shaking works: LRUCache alone does not pull the engine.
import { describe, expect, it } from 'vitest';
import { measure, SCENARIOS } from '../../bench/size.js';

describe('bundle size of typical imports (min+gzip)', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: within ${scenario.budget} bytes`, async () => {
      const row = await measure(scenario);
      expect(row.leaked).toEqual([]);
      expect(row.gzipBytes).toBeGreaterThan(0);
      expect(row.gzipBytes).toBeLessThanOrEqual(scenario.budget);
    });
  }

  it('LRUCache alone is a small part of the engine (tree-shaking)', async () => {
    const [lru, engine] = await Promise.all(SCENARIOS.slice(0, 2).map((s) => measure(s)));
    expect(lru?.gzipBytes).toBeLessThan((engine?.gzipBytes ?? 0) / 4);
  });

  it('the stores bundle the package’s OPFS worker', async () => {
    const stores = SCENARIOS.find((s) => s.name.startsWith('web: stores'));
    if (!stores) throw new Error('no stores row');
    expect((await measure(stores)).workerGzipBytes).toBeGreaterThan(1000);
  });
});
