// RLE frames decode into one scratch buffer per realm, grown when a bigger frame comes: frames of
// different sizes, sample sizes and values decoded in a row (bigger, smaller, bigger again, calls in
// flight interleaved) each give exactly their own pixels, none of the previous frame's bytes.
import { DicomDecoder, TransferSyntax } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { imageNamed, maxDiff, rescaled } from './expected.js';

const { files, filesUrl } = inject('dicom');

async function bytesOf(file: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${filesUrl}${file}`)).arrayBuffer());
}

describe('DICOM RLE: one reused scratch buffer', () => {
  // ct16 (64x48, 16-bit signed), multi (32x32x3 frames, 12 of 16 bits), rgb8 (16x24x3, 8-bit)
  const rle = files.filter(
    (f) => f.syntax === TransferSyntax.RLELossless && ['ct16', 'multi', 'rgb8'].includes(f.image),
  );

  it('decodes frames of different sizes in a row, each exactly', async () => {
    expect(rle.map((f) => f.image).sort()).toEqual(['ct16', 'multi', 'rgb8']);
    const bytes = new Map(
      await Promise.all(rle.map(async (f) => [f.image, await bytesOf(f.file)] as const)),
    );
    const decoder = new DicomDecoder();
    // bigger, smaller, smaller still, bigger again; then the same order with every call in flight
    const order = ['ct16', 'multi', 'rgb8', 'ct16', 'rgb8', 'multi', 'ct16'];
    const one = [];
    for (const name of order) one.push(await decoder.decode(bytes.get(name) as Uint8Array));
    const all = await Promise.all(
      order.map((name) => decoder.decode(bytes.get(name) as Uint8Array)),
    );
    for (const [k, name] of order.entries()) {
      const want = rescaled(imageNamed(name));
      expect(maxDiff(one[k]?.image.data ?? [], want), `${name}, decode ${k}`).toBe(0);
      expect(maxDiff(all[k]?.image.data ?? [], want), `${name}, decode ${k} in flight`).toBe(0);
    }
  });

  it('decodes each frame of a multi-frame object on its own, exactly', async () => {
    const f = rle.find((x) => x.image === 'multi');
    if (!f) throw new Error('no multi-frame RLE fixture');
    const image = imageNamed('multi');
    const want = rescaled(image);
    const size = image.rows * image.columns;
    const decoder = new DicomDecoder({ multiFrame: 'frames' });
    const bytes = await bytesOf(f.file);
    for (const frame of [2, 0, 1]) {
      const got = await decoder.decode(bytes, { frame });
      expect(
        maxDiff(got.image.data, want.slice(frame * size, (frame + 1) * size)),
        `frame ${frame}`,
      ).toBe(0);
    }
  });
});
