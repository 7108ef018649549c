// One transient 503 on a JPEG 2000 instance's frame request must not switch that instance to
// Explicit VR Little Endian requests for good (Orthanc cannot transcode JPEG 2000): the 503 is
// retried, the frame comes as stored, and later gets still ask for it as stored.
import { DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled } from './expected.js';
import { faultyPacs } from './faults.js';

const { files, faults } = inject('dicom');
const j2k = files.find((f) => f.file === 'ct16-j2k.dcm')!;

describe.skipIf(faults.orthanc === null)('DicomWebSource after a transient 503', () => {
  it('keeps asking for the JPEG 2000 frames as stored', async () => {
    const pacs = faultyPacs('503-1');
    const source = await DicomWebSource.open({
      root: pacs.root,
      study: j2k.study,
      series: j2k.series,
      retry: { baseDelayMs: 1 },
    });
    const want = rescaled(imageNamed('ct16'));
    const first = await source.get(0).then(
      (s) => s.image.data,
      (e: unknown) => e,
    );
    // the server has recovered: the instance must be readable
    const { image } = await source.get(0);
    expect(maxDiff(image.data, want)).toBe(0);
    expect(first).toBeInstanceOf(Float32Array);
    expect(source.stats().transcodeFallbacks).toBe(0);
  });
});
