// Every compressed fixture against another decoder: the samples DCMTK (GDCM for
// JPEG 2000) decodes the same file to (tests/setup/dicomFixtures.ts writes them
// beside each file), through DicomSource, DicomDecoder and DicomWebSource. Lossless
// syntaxes must match sample for sample; JPEG Baseline within 1 (IDCT rounding).
// The images include extremes on every border, odd sizes, 8/12/16 bits, signed and
// unsigned, 1 and 3 samples per pixel, and a CT whose last pixel ends the coded data.
import { DicomDecoder, DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed } from './expected.js';
import type { FixtureFile } from './fixtureImages.js';
import { toolTruth } from './toolTruth.js';

const { files, filesUrl, dicomWeb } = inject('dicom');
const compressed = files.filter((f) => f.truth !== null);

/** Where `got` first differs from `want` by more than `tolerance`, or null. */
function firstMismatch(
  got: Float32Array,
  want: Float64Array,
  tolerance: number,
): { at: number; got: number; want: number } | null {
  if (got.length !== want.length) return { at: -1, got: got.length, want: want.length };
  for (let i = 0; i < got.length; i++) {
    const d = Math.abs((got[i] as number) - (want[i] as number));
    if (!(d <= tolerance)) return { at: i, got: got[i] as number, want: want[i] as number };
  }
  return null;
}

const toleranceOf = (f: FixtureFile) => (f.syntax === '1.2.840.10008.1.2.4.50' ? 1 : 0);

describe('decoded samples equal DCMTK/GDCM', () => {
  it('has truth for every compressed syntax the fixtures use', () => {
    const syntaxes = new Set(compressed.map((f) => f.syntax));
    for (const uid of ['.4.50', '.4.57', '.4.70', '.4.80', '.4.81', '.4.90', '.5']) {
      expect(syntaxes.has(`1.2.840.10008.1.2${uid}`), uid).toBe(true);
    }
  });

  for (const f of compressed) {
    it(`${f.file} (${f.syntax}): DicomSource and DicomDecoder`, async () => {
      const image = imageNamed(f.image);
      const want = await toolTruth(filesUrl, f, image);
      const source = await DicomSource.open({ urls: [`${filesUrl}${f.file}`] });
      const { image: got } = await source.get(0);
      source.close();
      expect(firstMismatch(got.data, want, toleranceOf(f))).toBeNull();
      const bytes = new Uint8Array(await (await fetch(`${filesUrl}${f.file}`)).arrayBuffer());
      const decoded = await new DicomDecoder().decode(bytes, { where: f.file });
      expect(firstMismatch(decoded.image.data, want, toleranceOf(f))).toBeNull();
    });
  }

  it.skipIf(dicomWeb === null)('DicomWebSource: every compressed instance', async () => {
    const source = await DicomWebSource.open({
      root: dicomWeb as string,
      study: files[0]?.study as string,
    });
    let checked = 0;
    for (let i = 0; i < source.length; i++) {
      const f = compressed.find((x) => x.instance === source.instanceOf(i).instance);
      if (!f) continue;
      const want = await toolTruth(filesUrl, f, imageNamed(f.image));
      const { image: got } = await source.get(i);
      expect(firstMismatch(got.data, want, toleranceOf(f)), f.file).toBeNull();
      checked++;
    }
    expect(checked).toBe(compressed.length);
    source.close();
  });
});
