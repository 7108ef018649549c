// DicomSource over a FileSystemDirectoryHandle (an OPFS folder written by the test, as
// showDirectoryPicker() would give a CD export): walked recursively, paths relative to it,
// non-DICOM files skipped, pixels equal to the URL source's.
import { DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { CD_EXPORT } from './fixtureImages.js';
import { fixtureBytes, opfsFolder } from './localFiles.js';

const { filesUrl } = inject('dicom');

describe('DicomSource: a directory handle', () => {
  it('walks nested folders in path order, skips the DICOMDIR and other files', async () => {
    const { dir, remove } = await opfsFolder({
      'README.TXT': 'Viewer on this CD: run VIEWER.EXE\n',
      DICOMDIR: await fixtureBytes(CD_EXPORT.dicomdir),
      'IMAGES/S2/IM1': await fixtureBytes('ct16-rle.dcm'),
      'IMAGES/S1/IM2': await fixtureBytes('multi-explicit.dcm'),
      'IMAGES/S1/IM1': await fixtureBytes('ct16-jpegls.dcm'),
      'IMAGES/S1/deep/er/IM9': await fixtureBytes('gray8-explicit.dcm'),
      'VIEWER/VIEWER.EXE': new Uint8Array(1000).fill(0x4d),
    });
    try {
      const source = await DicomSource.open({ directory: dir, multiFrame: 'frames' });
      expect(source.skippedFiles).toBe(3);
      const paths = Array.from({ length: source.length }, (_, i) => source.pathOf(i));
      expect(paths).toEqual([
        'IMAGES/S1/IM1',
        'IMAGES/S1/IM2',
        'IMAGES/S1/IM2',
        'IMAGES/S1/IM2',
        'IMAGES/S1/deep/er/IM9',
        'IMAGES/S2/IM1',
      ]);
      const viaHttp = await DicomSource.open({
        urls: ['ct16-jpegls.dcm', 'multi-explicit.dcm', 'gray8-explicit.dcm', 'ct16-rle.dcm'].map(
          (f) => `${filesUrl}${f}`,
        ),
        multiFrame: 'frames',
      });
      expect(viaHttp.length).toBe(source.length);
      for (let i = 0; i < source.length; i++) {
        const [a, b] = [await source.get(i), await viaHttp.get(i)];
        expect(a.image.shape).toEqual(b.image.shape);
        expect(a.image.data).toEqual(b.image.data);
      }
      // Opening the same folder again gives the same data set.
      const again = await DicomSource.open({ directory: dir, multiFrame: 'frames' });
      expect(again.fingerprint).toBe(source.fingerprint);
    } finally {
      await remove();
    }
  });
});
