// DicomSource over HTTP decodes every transfer syntax the fixtures were transcoded to
// (DCMTK, GDCM): exact pixels for lossless syntaxes, within the stated tolerance for lossy ones.
import { DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled } from './expected.js';

const { files, filesUrl } = inject('dicom');

describe('DicomSource: transfer syntaxes', () => {
  for (const f of files) {
    it(`${f.file} (${f.syntax}) decodes to the source pixels${f.tolerance ? ` within ${f.tolerance}` : ' exactly'}`, async () => {
      const image = imageNamed(f.image);
      const source = await DicomSource.open({ urls: [`${filesUrl}${f.file}`] });
      const { image: got } = await source.get(0);
      const hwc = [image.rows, image.columns, image.samplesPerPixel];
      expect(got.shape).toEqual(image.frames > 1 ? [image.frames, ...hwc] : hwc);
      expect(got.data).toBeInstanceOf(Float32Array);
      const want = rescaled(image);
      if (image.photometric === 'MONOCHROME1') {
        // inverted around the representable range: (0 + 255) - v
        expect(
          maxDiff(
            got.data,
            want.map((v) => 255 - v),
          ),
        ).toBe(0);
      } else {
        expect(maxDiff(got.data, want)).toBeLessThanOrEqual(f.tolerance);
      }
      source.close();
    });
  }
});
