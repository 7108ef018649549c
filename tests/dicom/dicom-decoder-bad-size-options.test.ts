// Bad width, height or channels are refused when the decoder (or a source) is made, with an
// error naming the option and the value, as ImageDecoder's; a size whose output would pass
// the decode limit (2^30 floats) is a SizeLimitError before anything that size is allocated.
import { ImageDecoder } from '@medfusion/web';
import { DicomDecoder, DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';

const { filesUrl } = inject('dicom');

const BAD = [
  ['width', 0, RangeError],
  ['width', -224, RangeError],
  ['width', 22.4, RangeError],
  ['width', Number.NaN, RangeError],
  ['width', '224', TypeError],
  ['height', 0, RangeError],
  ['height', Number.POSITIVE_INFINITY, RangeError],
  ['height', null, TypeError],
  ['channels', 2, RangeError],
  ['channels', 4, RangeError],
  ['channels', '3', TypeError],
] as const;

describe('DicomDecoder: bad width, height, channels', () => {
  for (const [name, value, type] of BAD) {
    it(`${name}: ${String(value)} (${typeof value})`, async () => {
      const make = () => new DicomDecoder({ [name]: value } as never);
      expect(make).toThrow(type);
      expect(make).toThrow(new RegExp(`\\b${name}\\b`));
      expect(make).toThrow(typeof value === 'string' ? `"${value}"` : String(value));
      // the same refusal, word for word, as ImageDecoder's for the same option
      let image: unknown;
      try {
        new ImageDecoder({ [name]: value } as never);
      } catch (e) {
        image = e;
      }
      expect(() => make()).toThrow((image as Error).message);
      await expect(
        DicomSource.open({ urls: [`${filesUrl}ct16-rle.dcm`], [name]: value } as never),
      ).rejects.toThrow(type);
    });
  }

  it('an output past the decode limit is a SizeLimitError before allocating', async () => {
    const bytes = new Uint8Array(await (await fetch(`${filesUrl}ct16-rle.dcm`)).arrayBuffer());
    const decoder = new DicomDecoder({ width: 2 ** 16, height: 2 ** 15, channels: 3 });
    await expect(decoder.decode(bytes, { where: 'ct16-rle.dcm' })).rejects.toMatchObject({
      code: 'SIZE_LIMIT',
      message: expect.stringContaining('ct16-rle.dcm'),
    });
  });
});
