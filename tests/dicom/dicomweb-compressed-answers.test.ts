// Orthanc on its default settings gzips its answers; a PACS's CORS headers seldom expose
// Content-Encoding (docs/dicom.md does not ask for it). The browser decodes the gzip, so the
// body is longer than the Content-Length it can see: DicomWebSource must read it all the same.
import { DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled } from './expected.js';
import { faultyPacs } from './faults.js';

const { files, faults } = inject('dicom');
const study = files[0]?.study as string;

describe.skipIf(faults.orthanc === null)('DicomWebSource on a gzipping Orthanc', () => {
  it('reads compressed QIDO, metadata and frame answers without Content-Encoding exposed', async () => {
    const pacs = faultyPacs('none');
    const source = await DicomWebSource.open({ root: pacs.root, study });
    expect(source.length).toBe(files.length);
    for (let i = 0; i < source.length; i++) {
      const f = files.find((x) => x.instance === source.instanceOf(i).instance)!;
      const image = imageNamed(f.image);
      const want = rescaled(image);
      const expected = image.photometric === 'MONOCHROME1' ? want.map((v) => 255 - v) : want;
      const { image: got } = await source.get(i);
      expect(maxDiff(got.data, expected), f.file).toBeLessThanOrEqual(f.tolerance);
    }
    // Orthanc did compress: the test is about compressed answers.
    expect((await pacs.stats()).gzipped).toBeGreaterThan(0);
    source.close();
  });
});
