// The samples another decoder (DCMTK, GDCM for JPEG 2000) gives for a compressed fixture
// (tests/setup/dicomFixtures.ts writes them beside each file as `<file>.raw`).
import type { FixtureFile, FixtureImage } from './fixtureImages.js';

/** DCMTK's samples for `f`, sign-extended at Bits Stored and rescaled with the file's rescale. */
export async function toolTruth(
  filesUrl: string,
  f: FixtureFile,
  image: FixtureImage,
): Promise<Float64Array> {
  const truth = f.truth as NonNullable<FixtureFile['truth']>;
  const bytes = await (await fetch(`${filesUrl}${truth.raw}`)).arrayBuffer();
  const raw =
    image.bitsAllocated === 8
      ? new Uint8Array(bytes)
      : new Uint16Array(bytes, 0, bytes.byteLength >> 1);
  const bits = image.bitsStored ?? image.bitsAllocated;
  const out = new Float64Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    let v = (raw[i] as number) & (2 ** bits - 1);
    if (image.signed && v >= 2 ** (bits - 1)) v -= 2 ** bits;
    out[i] = image.samplesPerPixel === 1 ? v * truth.slope + truth.intercept : v;
  }
  return out;
}
