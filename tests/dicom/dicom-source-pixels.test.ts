// The pixel pipeline on 16-bit signed CT-like data: rescale, windows (the file's and given),
// multi-frame as volume or frames.
import { DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled, windowed } from './expected.js';

const { filesUrl } = inject('dicom');
const ct = imageNamed('ct16');

describe('DicomSource: pixel pipeline', () => {
  it('applies Rescale Slope and Intercept to signed 16-bit values', async () => {
    const source = await DicomSource.open({ urls: [`${filesUrl}ct16-jpegls.dcm`] });
    const { image } = await source.get(0);
    // stored -2000..1999, slope 2, intercept -10
    expect(Math.min(...image.data)).toBe(-4010);
    expect(image.data[0]).toBe(-2000 * 2 - 10);
    expect(maxDiff(image.data, rescaled(ct))).toBe(0);
  });

  it("window 'file' uses the file's Window Center/Width (40/400)", async () => {
    const source = await DicomSource.open({ urls: [`${filesUrl}ct16-rle.dcm`], window: 'file' });
    const { image } = await source.get(0);
    const want = rescaled(ct).map((v) => windowed(v, 40, 400));
    expect(maxDiff(image.data, want)).toBeLessThan(1e-6);
    expect(image.data.some((v) => v > 0 && v < 1)).toBe(true);
  });

  it('a given window replaces the file one', async () => {
    const source = await DicomSource.open({
      urls: [`${filesUrl}ct16-j2k.dcm`],
      window: { center: -600, width: 1500 },
    });
    const { image } = await source.get(0);
    const want = rescaled(ct).map((v) => windowed(v, -600, 1500));
    expect(maxDiff(image.data, want)).toBeLessThan(1e-6);
  });

  it('rejects a bad window at open', async () => {
    await expect(
      DicomSource.open({ urls: [`${filesUrl}ct16-rle.dcm`], window: { center: 0, width: 0 } }),
    ).rejects.toThrow(/window/);
  });

  it("multi-frame: 'volume' is one [F, H, W, C] sample, 'frames' one sample per frame", async () => {
    const multi = imageNamed('multi');
    const want = rescaled(multi);
    const volume = await DicomSource.open({ urls: [`${filesUrl}multi-rle.dcm`] });
    expect(volume.length).toBe(1);
    const v = await volume.get(0);
    expect(v.image.shape).toEqual([3, 32, 32, 1]);
    expect(maxDiff(v.image.data, want)).toBe(0);
    const frames = await DicomSource.open({
      urls: [`${filesUrl}multi-rle.dcm`, `${filesUrl}ct16-explicit.dcm`],
      multiFrame: 'frames',
    });
    expect(frames.length).toBe(4);
    for (let f = 0; f < 3; f++) {
      const s = await frames.get(f);
      expect(s.image.shape).toEqual([32, 32, 1]);
      expect(maxDiff(s.image.data, want.slice(f * 1024, (f + 1) * 1024))).toBe(0);
    }
    expect((await frames.get(3)).image.shape).toEqual([64, 48, 1]);
    // the three frames of the multi-frame file came from one fetch
    expect(frames.fileFetches).toBe(2);
  });
});
