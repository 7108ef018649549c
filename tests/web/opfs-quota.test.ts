import { fromLoader, PersistentTierDataset } from '@medfusion/core';
import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-quota-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

describe('OpfsStore quota path', () => {
  it('lets training go on without the disk tier and says so in stats', async () => {
    const store = new OpfsStore({ dir: dirName('tier'), quotaBytes: 6_000 });
    const source = fromLoader(10, (i) => ({ x: new Float32Array(500).fill(i) }));
    const tier = new PersistentTierDataset(source, {
      store,
      fingerprint: 'q@1',
      writeQueue: { concurrency: 1 },
    });
    for (let i = 0; i < 10; i++) {
      const s = await tier.get(i);
      expect(s.x[0]).toBe(i);
      await tier.flush();
    }
    const st = tier.getDiskStats();
    expect(st.diskDisabled).toBe(true);
    expect(st.diskDisabledReason).toMatch(/QUOTA_EXCEEDED/);
    expect(st.misses).toBe(10);
    expect(st.diskWrites).toBeGreaterThan(0);
    // what did get written is still served from disk
    const again = await tier.get(0);
    expect(again.x[0]).toBe(0);
    expect(tier.getDiskStats().diskHits).toBe(1);
    await store.close();
  });
});
