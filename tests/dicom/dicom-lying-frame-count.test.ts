// A Part 10 file whose header claims 2^31 - 1 frames (native and RLE) is refused from its
// header with SIZE_LIMIT naming the file and the claim, before any loop or allocation over
// the claimed count (was a hang past 10 s, or a bare RangeError at open with 'frames').
import { LoadError, SizeLimitError } from '@medfusion/core';
import { DicomDecoder, DicomSource } from '@medfusion/web/dicom';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { blobUrl, fixtureBytes, withNumberOfFrames } from './patchHeader.js';

const { filesUrl } = inject('dicom');
const LIE = 2 ** 31 - 1;
const urls: string[] = [];
afterAll(() => {
  for (const u of urls) URL.revokeObjectURL(u);
});

async function lying(file: string): Promise<{ bytes: Uint8Array; url: string }> {
  const bytes = withNumberOfFrames(await fixtureBytes(filesUrl, file), LIE);
  const url = blobUrl(bytes);
  urls.push(url);
  return { bytes, url };
}

/** The SizeLimitError behind `error` (a get wraps it in a LoadError naming the index). */
function sizeLimit(error: unknown): SizeLimitError {
  const inner = error instanceof LoadError ? error.cause : error;
  expect(inner).toBeInstanceOf(SizeLimitError);
  return inner as SizeLimitError;
}

function expectNames(error: SizeLimitError, where: string): void {
  expect(error.code).toBe('SIZE_LIMIT');
  expect(error.message).toContain(where);
  expect(error.message).toContain(String(LIE));
}

describe.each(['multi-explicit.dcm', 'multi-rle.dcm'])(
  'a header claiming 2^31 - 1 frames: %s',
  (file) => {
    it('DicomDecoder.decode rejects (volume and frames)', { timeout: 10_000 }, async () => {
      const { bytes } = await lying(file);
      for (const multiFrame of ['volume', 'frames'] as const) {
        const error = await new DicomDecoder({ multiFrame })
          .decode(bytes, { where: `lying/${file}` })
          .catch((e: unknown) => e);
        expectNames(sizeLimit(error), `lying/${file}`);
      }
    });

    it("DicomSource 'volume': get rejects", { timeout: 10_000 }, async () => {
      const { url } = await lying(file);
      const source = await DicomSource.open({ urls: [url] });
      const error = await source.get(0).catch((e: unknown) => e);
      expectNames(sizeLimit(error), url);
    });

    it("DicomSource 'frames': open rejects", { timeout: 10_000 }, async () => {
      const { url } = await lying(file);
      const error = await DicomSource.open({ urls: [url], multiFrame: 'frames' }).catch(
        (e: unknown) => e,
      );
      expectNames(sizeLimit(error), url);
    });
  },
);

describe('a manifest frames column claiming 2^31 - 1 frames', () => {
  it("DicomSource 'frames': open rejects before building the sample index", {
    timeout: 10_000,
  }, async () => {
    const manifest = blobUrl(
      new TextEncoder().encode(`url,frames\n${filesUrl}multi-rle.dcm,${LIE}\n`),
    );
    urls.push(manifest);
    const error = await DicomSource.open({
      manifestUrl: manifest,
      multiFrame: 'frames',
      urlPolicy: { allowOrigins: ['*'] },
    }).catch((e: unknown) => e);
    const e = sizeLimit(error);
    expect(e.code).toBe('SIZE_LIMIT');
    expect(e.message).toContain(`${filesUrl}multi-rle.dcm`);
    expect(e.claimed).toBe(LIE);
  });
});
