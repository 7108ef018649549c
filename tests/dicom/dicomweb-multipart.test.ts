// The WADO-RS multipart/related parser, through DicomWebSource and a scripted server:
// preamble, LF-only line ends, several frames in one answer, the transfer syntax in the
// part's Content-Type, and a body without its closing boundary.
import { DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, it } from 'vitest';

const S = '1.2.3';
const SE = '1.2.3.4';
const I = '1.2.3.4.5';
const meta = {
  '00080018': { vr: 'UI', Value: [I] },
  '0020000D': { vr: 'UI', Value: [S] },
  '0020000E': { vr: 'UI', Value: [SE] },
  '00280008': { vr: 'IS', Value: [2] },
  '00280010': { vr: 'US', Value: [2] },
  '00280011': { vr: 'US', Value: [2] },
  '00280100': { vr: 'US', Value: [8] },
  '00280004': { vr: 'CS', Value: ['MONOCHROME2'] },
};

function server(multipart: (boundary: string) => Uint8Array): typeof fetch {
  return async (input) => {
    const url = String(input);
    if (url.includes('/instances?') || url.endsWith('/metadata')) {
      return new Response(JSON.stringify([meta]), {
        headers: { 'Content-Type': 'application/dicom+json' },
      });
    }
    const boundary = 'b0und4ry';
    return new Response(multipart(boundary) as Uint8Array<ArrayBuffer>, {
      headers: {
        'Content-Type': `multipart/related; type="application/octet-stream"; boundary=${boundary}`,
      },
    });
  };
}

function bytes(...chunks: (string | number[])[]): Uint8Array {
  const parts = chunks.map((c) =>
    typeof c === 'string' ? new TextEncoder().encode(c) : Uint8Array.from(c),
  );
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe('DicomWebSource: multipart/related frames', () => {
  it('splits parts with LF line ends, a preamble and boundary-like bytes inside a frame', async () => {
    const fetchFn = server((b) =>
      bytes(
        'preamble\n',
        `--${b}\nContent-Type: application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1\n\n`,
        [1, 2, 45, 45], // "--" inside the frame
        `\n--${b}\nContent-Type: application/octet-stream\n\n`,
        [5, 6, 7, 8],
        `\n--${b}--\n`,
      ),
    );
    const source = await DicomWebSource.open({
      root: 'https://pacs.test/dicom-web',
      study: S,
      fetch: fetchFn,
    });
    const { image } = await source.get(0);
    expect(image.shape).toEqual([2, 2, 2, 1]);
    expect([...image.data]).toEqual([1, 2, 45, 45, 5, 6, 7, 8]);
  });

  it('a body without its closing boundary fails as BAD_FORMAT', async () => {
    const fetchFn = server((b) =>
      bytes(`--${b}\r\nContent-Type: application/octet-stream\r\n\r\n`, [1, 2, 3, 4]),
    );
    const source = await DicomWebSource.open({
      root: 'https://pacs.test/dicom-web',
      study: S,
      fetch: fetchFn,
    });
    await expect(source.get(0)).rejects.toMatchObject({
      code: 'LOAD_FAILED',
      cause: expect.objectContaining({ code: 'BAD_FORMAT' }),
    });
  });
});
