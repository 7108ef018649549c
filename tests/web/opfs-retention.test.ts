import { createCachedDataset, fromArray, OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-opfs-ret-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

describe('OpfsStore retention and forget', () => {
  it('a data set forgotten from another tab mid-training: the trainer reloads, never wrong data', async () => {
    const dir = dirName('train');
    const samples = Array.from({ length: 40 }, (_, i) => ({ x: new Int32Array(500).fill(i) }));
    const ds = createCachedDataset(fromArray(samples), {
      cacheType: 'lru',
      cacheSize: 1,
      cacheDir: dir,
      fingerprint: 'scan@1',
    });
    for (let i = 0; i < 40; i++) await ds.get(i);
    await ds.flush();
    const tab = new OpfsStore({ dir });
    let forgotten = 0;
    for (let i = 0; i < 40; i++) {
      if (i === 20) forgotten = await tab.forget('scan@1');
      expect((await ds.get(i)).x).toEqual(new Int32Array(500).fill(i));
    }
    expect(forgotten).toBeGreaterThan(0);
    const s = ds.getCacheStats();
    expect(s.diskHits).toBeGreaterThanOrEqual(20);
    expect(s.diskMisses).toBeGreaterThan(40); // the forgotten ones came from the source again
    await ds.close();
    await tab.close();
  });
});
