// ImageDecoder's JavaScript path for plain PNG bytes (8-bit grey or RGB at their own size)
// gives the platform's values: the same bytes as a Blob take createImageBitmap + canvas.
import { ImageDecoder } from '@medfusion/web';
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';

const W = 13;
const H = 7;
function png(channels: 1 | 3 | 4, depth: 8 | 16 = 8): Uint8Array {
  const n = W * H * channels;
  const data = depth === 8 ? new Uint8Array(n) : new Uint16Array(n);
  for (let k = 0; k < n; k++) data[k] = ((k * 37 + 11) % 256) * (depth === 8 ? 1 : 257);
  if (channels === 4) for (let k = 3; k < n; k += 4) data[k] = 255 * (depth === 8 ? 1 : 257);
  return encode({ width: W, height: H, data, depth, channels });
}

async function both(bytes: Uint8Array, channels: 1 | 3) {
  const decoder = new ImageDecoder({ channels });
  const fromBytes = await decoder.decode(bytes);
  const fromBlob = await decoder.decode(new Blob([bytes as Uint8Array<ArrayBuffer>]));
  return { fromBytes, fromBlob };
}

describe('ImageDecoder: plain PNG bytes', () => {
  for (const [name, src, channels] of [
    ['grey → 1 channel', 1, 1],
    ['grey → 3 channels', 1, 3],
    ['RGB → luminance', 3, 1],
    ['RGB → 3 channels', 3, 3],
    ['RGBA (platform path) → 1 channel', 4, 1],
  ] as const) {
    it(`${name}: the values of the platform decoder`, async () => {
      const { fromBytes, fromBlob } = await both(png(src), channels);
      expect([fromBytes.width, fromBytes.height, fromBytes.channels]).toEqual([W, H, channels]);
      expect(fromBytes.data.length).toBe(W * H * channels);
      for (let k = 0; k < fromBlob.data.length; k++) {
        expect(fromBytes.data[k]).toBeCloseTo(fromBlob.data[k] as number, 5);
      }
    });
  }

  it('a view into a larger buffer decodes its own bytes', async () => {
    const bytes = png(1);
    const padded = new Uint8Array(bytes.length + 10);
    padded.set(bytes, 5);
    const decoded = await new ImageDecoder().decode(padded.subarray(5, 5 + bytes.length));
    expect(decoded.data[1]).toBeCloseTo(48 / 255, 6);
  });

  it('16-bit and corrupt PNGs still decode, or fail, as the platform does', async () => {
    const deep = await new ImageDecoder().decode(png(1, 16));
    expect(deep.width).toBe(W);
    const broken = png(1).slice(0, 60);
    await expect(new ImageDecoder().decode(broken)).rejects.toMatchObject({
      code: 'IMAGE_DECODE',
    });
  });

  // WebKit's and Firefox's createImageBitmap resolve a cut-off PNG to a blank image: a corrupt
  // sample would become silently wrong data. Every engine must refuse it, as bytes or as a Blob.
  it('refuses a truncated PNG (no IEND at its end), as bytes or as a Blob, naming it', async () => {
    const whole = png(3);
    for (const cut of [whole.length - 12, whole.length - 1, 60]) {
      const part = whole.slice(0, cut);
      for (const input of [part, new Blob([part])]) {
        const err = await new ImageDecoder({ channels: 3 })
          .decode(input, 'cut.png')
          .catch((e: unknown) => e);
        expect(err, `cut at ${cut}`).toMatchObject({ code: 'IMAGE_DECODE' });
        expect((err as Error).message).toMatch(/cut\.png.*truncated/);
      }
    }
    // the whole file still decodes both ways
    expect(
      (await new ImageDecoder().decode(new Blob([whole as Uint8Array<ArrayBuffer>]))).width,
    ).toBe(W);
  });
});
