// A header claiming more pixels than the file can hold (Rows × Columns patched on a native
// and an RLE file) is refused with SIZE_LIMIT naming the file and the claimed size, before
// any buffer of that size is allocated (was a bare `RangeError: Array buffer allocation failed`).
import { LoadError, SizeLimitError } from '@medfusion/core';
import { DicomDecoder, DicomSource } from '@medfusion/web/dicom';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { blobUrl, fixtureBytes, withImageSize } from './patchHeader.js';

const { filesUrl } = inject('dicom');
const urls: string[] = [];
afterAll(() => {
  for (const u of urls) URL.revokeObjectURL(u);
});

/** The SizeLimitError behind `error` (a get wraps it in a LoadError naming the index). */
function sizeLimit(error: unknown): SizeLimitError {
  const inner = error instanceof LoadError ? error.cause : error;
  expect(inner).toBeInstanceOf(SizeLimitError);
  return inner as SizeLimitError;
}

// 65535 × 65535 is past any cap; 16000 × 16000 is under the cap but far more than the bytes hold.
const CASES = [
  ['ct16-explicit.dcm', 65535],
  ['ct16-explicit.dcm', 16000],
  ['ct16-rle.dcm', 65535],
  ['ct16-rle.dcm', 16000],
  ['multi-rle.dcm', 16000],
] as const;

describe.each(CASES)('%s claiming %i pixels a side', (file, side) => {
  const expectNames = (error: unknown, where: string) => {
    const e = sizeLimit(error);
    expect(e.code).toBe('SIZE_LIMIT');
    expect(e.message).toContain(where);
    expect(e.message).toContain(`${side} × ${side}`);
  };
  const lying = async () => withImageSize(await fixtureBytes(filesUrl, file), side, side);

  it('DicomDecoder.decode rejects (volume and frames)', { timeout: 10_000 }, async () => {
    const bytes = await lying();
    for (const multiFrame of ['volume', 'frames'] as const) {
      const error = await new DicomDecoder({ multiFrame })
        .decode(bytes, { where: `lying/${file}` })
        .catch((e: unknown) => e);
      expectNames(error, `lying/${file}`);
    }
  });

  it('DicomSource rejects (volume and frames, at open or get)', { timeout: 10_000 }, async () => {
    const url = blobUrl(await lying());
    urls.push(url);
    for (const multiFrame of ['volume', 'frames'] as const) {
      const error = await DicomSource.open({ urls: [url], multiFrame })
        .then((source) => source.get(0))
        .catch((e: unknown) => e);
      expectNames(error, url);
    }
  });
});
