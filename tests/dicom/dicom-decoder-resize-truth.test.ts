// DicomDecoder's width/height against an independent path: the samples DCMTK decodes the file
// to (tests/setup/dicomFixtures.ts), rescaled and windowed by the standard's formula (PS3.3
// C.11.2.1.2.1, written out in expected.ts), then resized by TensorFlow.js's own bilinear
// resize (`tf.image.resizeBilinear` with half-pixel centres, CPU backend, float32 arithmetic:
// hence the 2e-5 tolerance on values in [0, 1]). The window is applied before the blend: a
// decoder that resized the rescaled values and windowed after would be off by up to 1 here.
import { DicomDecoder } from '@medfusion/web/dicom';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, windowed } from './expected.js';
import { toolTruth } from './toolTruth.js';

const { files, filesUrl } = inject('dicom');

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** DCMTK's samples of `file`, windowed, then resized by TensorFlow.js. */
async function reference(
  file: string,
  window: { center: number; width: number },
  height: number,
  width: number,
): Promise<Float32Array> {
  const f = files.find((x) => x.file === file);
  if (!f) throw new Error(`no fixture ${file}`);
  const image = imageNamed(f.image);
  const rescaled = await toolTruth(filesUrl, f, image);
  const grey = Float32Array.from(rescaled, (v) => windowed(v, window.center, window.width));
  const resized = tf.tidy(() =>
    tf.image.resizeBilinear(
      tf.tensor3d(grey, [image.rows, image.columns, 1]),
      [height, width],
      false,
      true,
    ),
  );
  const data = (await resized.data()) as Float32Array;
  resized.dispose();
  return data;
}

async function decoded(file: string, options: ConstructorParameters<typeof DicomDecoder>[0]) {
  const bytes = new Uint8Array(await (await fetch(`${filesUrl}${file}`)).arrayBuffer());
  return (await new DicomDecoder(options).decode(bytes, { where: file })).image;
}

describe('DicomDecoder width/height: DCMTK + window + TensorFlow.js bilinear', () => {
  const cases = [
    // 12 of 16 bits stored, JPEG Lossless SV1, as the feed bench's CT slices; 128² down
    ['pad12-jpeg-lossless-sv1.dcm', { center: -2000, width: 100 }, 56, 40],
    // 16-bit signed, slope 2: 64 × 48 down, up, and one side only
    ['ct16-jpeg-lossless-sv1.dcm', { center: 40, width: 400 }, 29, 37],
    ['ct16-rle.dcm', { center: 40, width: 400 }, 100, 90],
    ['ct16-jpegls.dcm', { center: -200, width: 3000 }, 64, 17],
    // extremes on every border
    ['edge16-jpeg-lossless.dcm', { center: 0, width: 2000 }, 61, 64],
  ] as const;
  for (const [file, window, height, width] of cases) {
    it(`${file} window ${window.center}/${window.width} to ${height} × ${width}`, async () => {
      const want = await reference(file, window, height, width);
      const got = await decoded(file, { window, width, height });
      expect(got.shape).toEqual([height, width, 1]);
      expect(maxDiff(got.data, want)).toBeLessThan(2e-5);
      // not a flat image: the check can see a wrong blend
      expect(got.data.some((v) => v > 0.05 && v < 0.95)).toBe(true);
      expect(got.data.some((v) => v === 0 || v === 1)).toBe(true);
    });
  }

  it('at its own size (width and height given) the pixels are the full-size decode', async () => {
    const file = 'ct16-jpeg-lossless-sv1.dcm';
    const full = await decoded(file, { window: 'file' });
    const same = await decoded(file, { window: 'file', width: 48, height: 64 });
    expect(same.shape).toEqual(full.shape);
    expect(maxDiff(same.data, full.data)).toBe(0);
  });

  it('a multi-frame volume is resized frame by frame', async () => {
    const file = 'multi-rle.dcm';
    const image = imageNamed('multi');
    const window = { center: 0, width: 4000 };
    const got = await decoded(file, { window, width: 20, height: 12 });
    expect(got.shape).toEqual([image.frames, 12, 20, 1]);
    const each = await Promise.all(
      Array.from({ length: image.frames }, async (_, frame) => {
        const bytes = new Uint8Array(await (await fetch(`${filesUrl}${file}`)).arrayBuffer());
        const decoder = new DicomDecoder({ window, width: 20, height: 12, multiFrame: 'frames' });
        return (await decoder.decode(bytes, { frame })).image.data;
      }),
    );
    const joined = new Float32Array(got.data.length);
    for (const [i, d] of each.entries()) joined.set(d, i * d.length);
    expect(maxDiff(got.data, joined)).toBe(0);
    // and the whole volume against DCMTK + TensorFlow.js, a frame at a time
    const f = files.find((x) => x.file === file);
    const rescaled = f?.truth ? await toolTruth(filesUrl, f, image) : null;
    expect(rescaled).not.toBeNull();
    const plane = image.rows * image.columns;
    for (let frame = 0; frame < image.frames; frame++) {
      const grey = Float32Array.from(
        (rescaled as Float64Array).subarray(frame * plane, (frame + 1) * plane),
        (v) => windowed(v, window.center, window.width),
      );
      const want = tf.tidy(() =>
        tf.image
          .resizeBilinear(tf.tensor3d(grey, [image.rows, image.columns, 1]), [12, 20], false, true)
          .dataSync(),
      );
      expect(maxDiff(got.data.subarray(frame * 240, (frame + 1) * 240), want)).toBeLessThan(2e-5);
    }
  });
});
