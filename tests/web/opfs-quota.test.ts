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
  it('evicts and retries once when the quota is hit, keeping the newest data', async () => {
    // maxBytes is generous, the (injected) quota is not: 3 segments of ~8 KB fit
    const store = new OpfsStore({
      dir: dirName('retry'),
      maxBytes: 10 * 2 ** 20,
      segmentBytes: 8_200,
      quotaBytes: 25_000,
    });
    for (let i = 0; i < 20; i++) await store.put(`k${i}`, new Uint8Array(2000).fill(i));
    const u = await store.usage();
    expect(u.quotaErrors).toBeGreaterThan(0);
    expect(u.evictedSegments).toBeGreaterThan(0);
    expect(u.diskBytes).toBeLessThanOrEqual(25_000);
    expect(await store.get('k19')).toEqual(new Uint8Array(2000).fill(19));
    expect(await store.has('k0')).toBe(false);
    await store.close();
  });

  it('rejects with QUOTA_EXCEEDED when evicting does not help', async () => {
    const store = new OpfsStore({ dir: dirName('fail'), quotaBytes: 1_000 });
    await expect(store.put('big', new Uint8Array(5_000))).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    await store.put('tiny', new Uint8Array(10));
    expect(await store.get('tiny')).toEqual(new Uint8Array(10));
    await store.close();
  });

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
