// DicomSource over files on the user's machine (File objects as an <input webkitdirectory> or a
// drop gives them): the same pixels as the URL source, non-DICOM files and DICOMDIRs skipped and
// counted, samples in relative-path order whatever the input order, a fingerprint from
// names + sizes + dates.
import { DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { CD_EXPORT } from './fixtureImages.js';
import { fixtureFile } from './localFiles.js';

const { filesUrl } = inject('dicom');

/** Relative path → fixture file, listed out of path order on purpose. */
const TREE: [string, string][] = [
  ['study/series-2/b.dcm', 'ct16-rle.dcm'],
  ['study/series-1/z.dcm', 'gray8-explicit.dcm'],
  ['study/series-10/a.dcm', 'ct16-j2k.dcm'],
  ['study/series-1/a.dcm', 'rgb8-rle.dcm'],
];
/** TREE's paths in code unit order. */
const SORTED = [
  'study/series-1/a.dcm',
  'study/series-1/z.dcm',
  'study/series-10/a.dcm',
  'study/series-2/b.dcm',
];

async function treeFiles(): Promise<File[]> {
  return Promise.all(TREE.map(([path, from]) => fixtureFile(path, from)));
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('DicomSource: local files', () => {
  it('decodes Files to the same pixels as the URL source, in relative-path order', async () => {
    const files = await treeFiles();
    const source = await DicomSource.open({ files });
    expect(source.length).toBe(4);
    expect(source.skippedFiles).toBe(0);
    expect(Array.from({ length: 4 }, (_, i) => source.pathOf(i))).toEqual(SORTED);
    const byPath = new Map(TREE);
    const urls = SORTED.map((p) => `${filesUrl}${byPath.get(p)}`);
    const viaHttp = await DicomSource.open({ urls });
    for (let i = 0; i < 4; i++) {
      const [a, b] = [await source.get(i), await viaHttp.get(i)];
      expect(a.image.shape).toEqual(b.image.shape);
      expect(a.image.data).toEqual(b.image.data);
      expect(Number.isNaN(a.label)).toBe(true);
    }
    expect(source.fileFetches).toBe(4);
    expect(() => source.urlOf(0)).toThrow(/pathOf/);
    expect(() => viaHttp.pathOf(0)).toThrow(/urlOf/);
  });

  it('gives the same order and fingerprint for any input order', async () => {
    const files = await treeFiles();
    const first = await DicomSource.open({ files });
    for (const seed of [1, 2, 3]) {
      const again = await DicomSource.open({ files: shuffled(files, seed) });
      expect(Array.from({ length: 4 }, (_, i) => again.pathOf(i))).toEqual(SORTED);
      expect(again.fingerprint).toBe(first.fingerprint);
      expect((await again.get(2)).image.data).toEqual((await first.get(2)).image.data);
    }
  });

  it('the fingerprint follows names, sizes and dates, not contents', async () => {
    const files = await treeFiles();
    const base = (await DicomSource.open({ files })).fingerprint;
    expect(base).toMatch(/^dicom:[0-9a-f]{8}#4$/);
    const touched = files.map((f, i) =>
      i === 0 ? new File([f], f.name, { lastModified: f.lastModified + 1 }) : f,
    );
    expect((await DicomSource.open({ files: touched })).fingerprint).not.toBe(base);
    const renamed = files.map((f, i) => (i === 0 ? new File([f], `${f.name}.x`, f) : f));
    expect((await DicomSource.open({ files: renamed })).fingerprint).not.toBe(base);
    // Same name, size and date, other bytes: the same fingerprint (documented).
    const other = await fixtureFile(TREE[0]?.[0] as string, 'ct16-explicit.dcm');
    const sameStamp = files.map((f, i) =>
      i === 0 ? new File([other.slice(0, f.size)], f.name, { lastModified: f.lastModified }) : f,
    );
    expect((await DicomSource.open({ files: sameStamp })).fingerprint).toBe(base);
    const windowed = await DicomSource.open({ files, window: { center: 40, width: 400 } });
    expect(windowed.fingerprint).not.toBe(base);
  });

  it('skips files that are not DICOM and counts them; a Blob is named by its position', async () => {
    const files: Blob[] = await treeFiles();
    files.push(new File(['patient list, do not share\n'], 'study/notes.txt'));
    files.push(new File([new Uint8Array(300)], 'study/empty-preamble.dcm')); // no DICM at 128
    files.push(new File([], 'study/.DS_Store'));
    files.push(new Blob([await (await fixtureFile('x', 'gray8-explicit.dcm')).arrayBuffer()]));
    const source = await DicomSource.open({ files });
    expect(source.skippedFiles).toBe(3);
    expect(source.length).toBe(5);
    expect(source.pathOf(4)).toBe('study/series-2/b.dcm');
    expect(source.pathOf(0)).toBe('files[7]');
  });

  it('reads a CD export: the DICOMDIR is skipped, multi-frame as volume or frames', async () => {
    const dicomdir = await fixtureFile(CD_EXPORT.dicomdir, CD_EXPORT.dicomdir);
    // The test really has a DICOMDIR: DICM at 128 and Media Storage Directory Storage.
    const head = new Uint8Array(await dicomdir.slice(0, 512).arrayBuffer());
    expect(new TextDecoder().decode(head.subarray(128, 132))).toBe('DICM');
    expect(new TextDecoder().decode(head)).toContain('1.2.840.10008.1.3.10');
    const images = await Promise.all(CD_EXPORT.images.map(([path]) => fixtureFile(path, path)));
    const files = [...images, dicomdir];
    const volume = await DicomSource.open({ files });
    expect(volume.skippedFiles).toBe(1);
    expect(volume.length).toBe(2);
    expect((await volume.get(1)).image.shape).toEqual([3, 32, 32, 1]);
    const frames = await DicomSource.open({ files, multiFrame: 'frames' });
    expect(frames.length).toBe(4);
    const viaHttp = await DicomSource.open({
      urls: CD_EXPORT.images.map(([, from]) => `${filesUrl}${from}`),
      multiFrame: 'frames',
    });
    for (let i = 0; i < 4; i++) {
      expect((await frames.get(i)).image.data).toEqual((await viaHttp.get(i)).image.data);
    }
    expect(frames.pathOf(3)).toBe('cd/IMAGES/IM2');
  });
});
