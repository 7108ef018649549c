// DicomDecoder's channels: 3 on a grey image is the grey value three times (R = G = B, the
// values of channels 1 exactly, resized or not); 1 on an RGB image is luminance
// (0.299 R + 0.587 G + 0.114 B, ImageDecoder's weights) of the RGB decode; 3 on RGB keeps it.
import { DicomDecoder } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { maxDiff } from './expected.js';

const { filesUrl } = inject('dicom');

async function bytesOf(file: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${filesUrl}${file}`)).arrayBuffer());
}

describe('DicomDecoder channels', () => {
  for (const size of [{}, { width: 30, height: 20 }]) {
    it(`3 on grey repeats the grey value${'width' in size ? ', resized' : ''}`, async () => {
      const bytes = await bytesOf('pad12-jpeg-lossless-sv1.dcm');
      const window = { center: -2000, width: 100 };
      const grey = (await new DicomDecoder({ window, ...size, channels: 1 }).decode(bytes)).image;
      const rgb = (await new DicomDecoder({ window, ...size, channels: 3 }).decode(bytes)).image;
      const [h, w] = grey.shape as [number, number, number];
      expect(grey.shape).toEqual([h, w, 1]);
      expect(rgb.shape).toEqual([h, w, 3]);
      expect(rgb.data.length).toBe(grey.data.length * 3);
      let differing = 0;
      for (let p = 0; p < grey.data.length; p++) {
        for (let c = 0; c < 3; c++) if (rgb.data[p * 3 + c] !== grey.data[p]) differing++;
      }
      expect(differing).toBe(0);
      expect(new Set(grey.data).size).toBeGreaterThan(10);
    });
  }

  it('channels 1 (the default for grey) changes nothing at full size', async () => {
    const bytes = await bytesOf('ct16-rle.dcm');
    const plain = (await new DicomDecoder({ window: 'file' }).decode(bytes)).image;
    const one = (await new DicomDecoder({ window: 'file', channels: 1 }).decode(bytes)).image;
    expect(one.shape).toEqual(plain.shape);
    expect(maxDiff(one.data, plain.data)).toBe(0);
  });

  it('1 on RGB is the luminance of the RGB decode; 3 keeps RGB', async () => {
    const bytes = await bytesOf('rgb8-rle.dcm');
    const rgb = (await new DicomDecoder().decode(bytes)).image;
    const [h, w, c] = rgb.shape as [number, number, number];
    expect(c).toBe(3);
    const luma = (await new DicomDecoder({ channels: 1 }).decode(bytes)).image;
    expect(luma.shape).toEqual([h, w, 1]);
    const want = new Float64Array(h * w);
    for (let p = 0; p < h * w; p++) {
      const [r, g, b] = [rgb.data[p * 3], rgb.data[p * 3 + 1], rgb.data[p * 3 + 2]] as number[];
      want[p] = 0.299 * (r as number) + 0.587 * (g as number) + 0.114 * (b as number);
    }
    expect(maxDiff(luma.data, want)).toBeLessThan(1e-4);
    expect(new Set(luma.data).size).toBeGreaterThan(3);
    const three = (await new DicomDecoder({ channels: 3 }).decode(bytes)).image;
    expect(maxDiff(three.data, rgb.data)).toBe(0);
  });
});
