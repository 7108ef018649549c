// DicomDecoder's dtype 'uint8': each value is round(float value × 255) of the same decode as
// float32 (a windowed grey value in [0, 1]), at the image's own size or resized, 1 or 3
// channels; 8-bit colour as stored (luminance and resized values rounded). A grey image
// without a window, or colour over 8 bits, is refused with DICOM_UNSUPPORTED; a bad dtype when
// the decoder is made, as ImageDecoder's.
import { ImageDecoder } from '@medfusion/web';
import { DicomDecoder } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';

const { filesUrl } = inject('dicom');

async function bytesOf(file: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${filesUrl}${file}`)).arrayBuffer());
}

/** How many values of `got` are not round(`floats` × `scale`). */
function offRounded(got: Uint8Array, floats: Float32Array, scale: number): number {
  if (got.length !== floats.length) return Number.POSITIVE_INFINITY;
  let off = 0;
  for (let i = 0; i < got.length; i++) {
    if (got[i] !== Math.round((floats[i] as number) * scale)) off++;
  }
  return off;
}

describe("DicomDecoder dtype 'uint8'", () => {
  const window = { center: 40, width: 400 };
  for (const shape of [{}, { width: 37, height: 29, channels: 3 as const }, { width: 100 }]) {
    it(`grey, windowed: round(float × 255) ${JSON.stringify(shape)}`, async () => {
      const bytes = await bytesOf('ct16-jpeg-lossless-sv1.dcm');
      const floats = (await new DicomDecoder({ window, ...shape }).decode(bytes)).image;
      const u8 = (await new DicomDecoder({ window, ...shape, dtype: 'uint8' }).decode(bytes)).image;
      expect(u8.data).toBeInstanceOf(Uint8Array);
      expect(u8.shape).toEqual(floats.shape);
      expect(offRounded(u8.data, floats.data, 255)).toBe(0);
      expect(new Set(u8.data).size).toBeGreaterThan(50);
    });
  }

  it('8-bit RGB: values as stored, luminance and resize rounded', async () => {
    const bytes = await bytesOf('rgb8-rle.dcm');
    for (const shape of [{}, { channels: 1 as const }, { width: 10, height: 7 }]) {
      const floats = (await new DicomDecoder(shape).decode(bytes)).image;
      const u8 = (await new DicomDecoder({ ...shape, dtype: 'uint8' }).decode(bytes)).image;
      expect(u8.shape).toEqual(floats.shape);
      expect(offRounded(u8.data, floats.data, 1), JSON.stringify(shape)).toBe(0);
    }
  });

  it('a grey image without a window is DICOM_UNSUPPORTED', async () => {
    const grey = new DicomDecoder({ dtype: 'uint8' });
    await expect(
      grey.decode(await bytesOf('ct16-rle.dcm'), { where: 'ct16-rle.dcm' }),
    ).rejects.toMatchObject({
      code: 'DICOM_UNSUPPORTED',
      message: expect.stringContaining('window'),
    });
  });

  it('a bad dtype is refused as ImageDecoder refuses it', () => {
    for (const value of ['float64', 'UINT8', 8, null]) {
      let image: unknown;
      try {
        new ImageDecoder({ dtype: value } as never);
      } catch (e) {
        image = e;
      }
      const make = () => new DicomDecoder({ dtype: value } as never);
      expect(make).toThrow(/dtype/);
      expect(make).toThrow((image as Error).message);
      expect(make).toThrow((image as Error).constructor as ErrorConstructor);
    }
  });
});
