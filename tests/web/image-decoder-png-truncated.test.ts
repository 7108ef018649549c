// A PNG cut short (a partial download, a torn write) is an ImageDecodeError naming the
// sample in every engine. Firefox's and WebKit's createImageBitmap resolve on a cut-off
// file with a blank (or half-drawn) image, so the decoder checks the bytes first: chunk
// lengths that fit the file, and an IEND chunk. The PNGs are made by fast-png.
import { ImageDecodeError, ImageDecoder } from '@medfusion/web';
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';

const W = 32;
const H = 24;
/** An 8-bit PNG with `channels` channels (4: RGBA, which takes the platform path). */
function png(channels: 1 | 3 | 4): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(W * H * channels);
  for (let k = 0; k < data.length; k++) data[k] = (k * 37 + 11) % 256;
  return encode({ width: W, height: H, data, depth: 8, channels }) as Uint8Array<ArrayBuffer>;
}

describe('ImageDecoder: a truncated PNG', () => {
  for (const channels of [1, 3, 4] as const) {
    const whole = png(channels);
    // in IDAT, just before IEND, and inside IEND
    for (const cut of [Math.floor(whole.length / 2), whole.length - 12, whole.length - 3]) {
      for (const as of ['bytes', 'Blob'] as const) {
        it(`${channels} channel(s), cut at ${cut} of ${whole.length} bytes, as ${as}: IMAGE_DECODE naming it`, async () => {
          const bytes = whole.slice(0, cut);
          const input = as === 'Blob' ? new Blob([bytes]) : bytes;
          const err = await new ImageDecoder({ channels: channels === 4 ? 1 : channels })
            .decode(input, 'images/cut.png')
            .then(
              () => undefined,
              (e: unknown) => e,
            );
          expect(err).toBeInstanceOf(ImageDecodeError);
          expect(err).toMatchObject({ code: 'IMAGE_DECODE' });
          expect((err as Error).message).toContain('images/cut.png');
          expect((err as Error).message).toMatch(/truncated|cut short|could not decode/);
        });
      }
    }
  }

  it('the whole file still decodes (the control), with bytes after IEND ignored', async () => {
    const whole = png(3);
    const padded = new Uint8Array(whole.length + 7);
    padded.set(whole);
    for (const input of [whole, new Blob([whole]), padded]) {
      const d = await new ImageDecoder({ channels: 3 }).decode(input, 'ok.png');
      expect([d.width, d.height]).toEqual([W, H]);
      expect(d.data[0]).toBeCloseTo(11 / 255, 5);
    }
  });
});
