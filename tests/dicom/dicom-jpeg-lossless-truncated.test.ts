// A JPEG Lossless frame whose coded data ends early (an EOI marker moved forward over
// its last bytes, the file otherwise intact) fails with DICOM_FORMAT naming the file:
// a decoder that pads with zeros would return the missing pixels as wrong values.
import { DicomDecoder, DicomError } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';

const { files, filesUrl } = inject('dicom');

/** `bytes` with the frame's last `cut` bytes of coded data (before fill bytes and EOI) cut. */
function cutBeforeEoi(bytes: Uint8Array, cut: number): Uint8Array {
  const out = bytes.slice();
  let eoi = -1;
  for (let i = out.length - 2; i >= 0; i--) {
    if (out[i] === 0xff && out[i + 1] === 0xd9) {
      eoi = i;
      break;
    }
  }
  // 0xFF fill bytes may stand before a marker: they are not coded data.
  let end = eoi;
  while (out[end - 1] === 0xff) end--;
  expect(end).toBeGreaterThan(cut);
  out.fill(0, end - cut, eoi + 2);
  out[end - cut] = 0xff;
  out[end - cut + 1] = 0xd9;
  return out;
}

describe('JPEG Lossless: coded data that ends early', () => {
  for (const name of ['pad16-jpeg-lossless-sv1.dcm', 'edge12-jpeg-lossless.dcm']) {
    it(`${name}: DICOM_FORMAT naming the file, for 1 and 16 bytes cut`, async () => {
      expect(files.some((f) => f.file === name)).toBe(true);
      const bytes = new Uint8Array(await (await fetch(`${filesUrl}${name}`)).arrayBuffer());
      const decoder = new DicomDecoder();
      // the intact file decodes
      await expect(decoder.decode(bytes, { where: name })).resolves.toBeDefined();
      for (const cut of [1, 16]) {
        const error = await decoder.decode(cutBeforeEoi(bytes, cut), { where: name }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, `${cut} bytes cut`).toBeInstanceOf(DicomError);
        expect((error as DicomError).code).toBe('DICOM_FORMAT');
        expect((error as Error).message).toContain(name);
        expect((error as Error).message).toMatch(/JPEG Lossless/);
      }
    });
  }
});
