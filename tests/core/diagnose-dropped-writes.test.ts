// A disk tier whose write queue overflowed keeps fewer samples than the user
// thinks: diagnose() and formatCacheReport() say how many writes were dropped
// and advise more room for the queue, instead of promising that "the disk tier
// serves these next time".
import {
  createCachedDataset,
  diagnose,
  formatCacheReport,
  fromLoader,
  MemoryStore,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** A disk that takes 50 ms per write, so the queue fills while the source goes on. */
class SlowDisk extends MemoryStore {
  override async put(key: string, value: Uint8Array): Promise<void> {
    await new Promise((r) => setTimeout(r, 50));
    return super.put(key, value);
  }
}

const slowSource = () =>
  fromLoader(64, async (i) => {
    await new Promise((r) => setTimeout(r, 2));
    return new Float32Array(8).fill(i);
  });

async function readAll(maxPending: number) {
  const ds = createCachedDataset(slowSource(), {
    cacheType: 'both',
    cacheSize: 8,
    store: new SlowDisk(),
    fingerprint: 'dropped',
    diskWriteQueue: { maxPending, delayMs: 1000 },
  });
  for (let i = 0; i < 64; i++) await ds.get(i);
  const stats = ds.getCacheStats();
  await ds.close();
  return stats;
}

describe('diagnose with dropped disk writes', () => {
  it('counts them and advises more room for the write queue', async () => {
    const stats = await readAll(4);
    expect(stats.disk.writesDropped).toBeGreaterThan(0);
    const d = diagnose(stats, { wallMs: stats.stallMs * 2 }); // stalled half the time
    expect(d.bottleneck).toBe('source-latency');
    expect(d.evidence).toContain(`${stats.disk.writesDropped} disk writes dropped`);
    expect(d.recommendation).toMatch(/diskWriteQueue\.maxPending/);
    expect(formatCacheReport(stats)).toContain(
      `${stats.disk.writesDropped} disk writes dropped (queue full`,
    );
  });

  it('says nothing of it when every write was kept', async () => {
    const stats = await readAll(64);
    expect(stats.disk.writesDropped).toBe(0);
    const d = diagnose(stats, { wallMs: stats.stallMs * 2 });
    expect(d.evidence).not.toContain('dropped');
    expect(d.recommendation ?? '').not.toMatch(/diskWriteQueue/);
    expect(formatCacheReport(stats)).not.toContain('dropped');
  });
});
