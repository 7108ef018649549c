// A decode option that changes the sample changes the source's fingerprint, the disk tier's
// key: width, height and channels each give DicomSource (and DicomWebSource) another
// fingerprint, and a disk tier filled at one size never hands those samples to a source opened
// at another. Without them the fingerprint is what it was before they existed.
import { createCachedDataset, storeForCacheDir } from '@medfusion/web';
import { DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, inject, it } from 'vitest';

const { files, filesUrl, dicomWeb } = inject('dicom');
const urls = ['ct16-rle.dcm', 'ct16-jpegls.dcm'].map((f) => `${filesUrl}${f}`);
const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) {
    await root.removeEntry(d, { recursive: true }).catch(() => {});
    await deleteDB(`medfusion:${d}`);
  }
});

const VARIANTS = [
  {},
  { width: 32 },
  { height: 32 },
  { width: 32, height: 32 },
  { width: 32, height: 24 },
  { channels: 3 },
  { channels: 1 },
  { width: 32, height: 32, channels: 3 },
] as const;

describe('fingerprint by decode shape', () => {
  it('DicomSource: each width/height/channels gives its own fingerprint', async () => {
    const prints = await Promise.all(
      VARIANTS.map(
        async (v) => (await DicomSource.open({ urls, window: 'file', ...v })).fingerprint,
      ),
    );
    expect(new Set(prints).size).toBe(VARIANTS.length);
    // without the options: the fingerprint of before (same inputs, same string)
    const again = await DicomSource.open({ urls, window: 'file' });
    expect(again.fingerprint).toBe(prints[0]);
  });

  it.skipIf(dicomWeb === null)('DicomWebSource: each gives its own fingerprint', async () => {
    const study = files[0]?.study as string;
    const prints = await Promise.all(
      ([{}, { width: 32, height: 32 }, { channels: 3 }] as const).map(async (v) => {
        const s = await DicomWebSource.open({ root: dicomWeb as string, study, ...v });
        s.close();
        return s.fingerprint;
      }),
    );
    expect(new Set(prints).size).toBe(3);
  });

  for (const backend of ['opfs', 'idb'] as const) {
    it(`${backend} disk tier: samples cached at 32 × 32 × 3 are not returned at 16 × 24 × 1`, async () => {
      const cacheDir = `test-dicom-shape-${backend}-${Math.random().toString(36).slice(2)}`;
      dirs.push(cacheDir);
      const run = async (shape: { width: number; height: number; channels: 1 | 3 }) => {
        const source = await DicomSource.open({ urls, window: 'file', ...shape });
        const ds = createCachedDataset(source, {
          cacheType: 'lru',
          store: storeForCacheDir(cacheDir, { backend }),
          ownsStore: true,
          fingerprint: source.fingerprint,
        });
        const shapes = [];
        for (let i = 0; i < source.length; i++) shapes.push((await ds.get(i)).image.shape);
        await ds.flush();
        const stats = ds.getCacheStats().disk;
        await ds.close();
        return { shapes, stats };
      };
      const first = await run({ width: 32, height: 32, channels: 3 });
      expect(first.shapes).toEqual([
        [32, 32, 3],
        [32, 32, 3],
      ]);
      expect(first.stats.diskWrites).toBe(2);
      // the same options again: served from disk (the check can see a hit)
      const hit = await run({ width: 32, height: 32, channels: 3 });
      expect(hit.stats.diskHits).toBe(2);
      const other = await run({ width: 24, height: 16, channels: 1 });
      expect(other.shapes).toEqual([
        [16, 24, 1],
        [16, 24, 1],
      ]);
      expect(other.stats.diskHits).toBe(0);
    });
  }
});
