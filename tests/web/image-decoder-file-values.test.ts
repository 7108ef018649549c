// ImageDecoder's values are the file's, on whichever platform path the engine takes (WebCodecs'
// ImageDecoder in Chromium, createImageBitmap + canvas elsewhere): a JPEG's are what
// libjpeg-turbo decodes (chroma upsampled and converted as libjpeg does: 4:2:0 at odd sizes,
// 4:4:4, one component), and a PNG's colours are not colour-managed (a gAMA 1.0 chunk, which a
// colour-managing decode brightens by ~70). Fixtures and their truth from other tools
// (tests/web/fixtures/decoded-images/make.mjs: sharp/libjpeg-turbo, fast-png, zlib).
import { ImageDecoder } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { server } from 'vitest/browser';

/**
 * WebKit (no WebCodecs ImageDecoder) decodes a Blob with createImageBitmap, which applies a
 * PNG's gAMA chunk although asked for `colorSpaceConversion: 'none'` (63 off here): a limit of
 * the platform's path, which the library documents. The bytes of this small PNG take fast-png.
 */
const gammaOnCanvas = server.browser === 'webkit';

const base = new URL('/tests/web/fixtures/decoded-images/', location.origin).href;
const load = async (name: string) =>
  new Uint8Array(await (await fetch(new URL(name, base))).arrayBuffer());

const FILES = [
  ['ycc420-31x17.jpg', 31, 17, 3],
  ['ycc420-64x48.jpg', 64, 48, 3],
  ['ycc444-24x16.jpg', 24, 16, 3],
  ['grey-20x12.jpg', 20, 12, 1],
  ['gamma1-16x8.png', 16, 8, 3],
] as const;

/** The truth as `to` channels: RGB (grey repeated) or rounded luminance. */
function asChannels(truth: Uint8Array, from: 1 | 3, to: 1 | 3): Uint8Array {
  if (from === to) return truth;
  const n = truth.length / from;
  const out = new Uint8Array(n * to);
  for (let p = 0; p < n; p++) {
    if (from === 1) out.fill(truth[p] as number, p * 3, p * 3 + 3);
    else {
      const [r, g, b] = truth.subarray(p * 3, p * 3 + 3) as unknown as [number, number, number];
      out[p] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
    }
  }
  return out;
}

describe("ImageDecoder: the file's values", () => {
  for (const [name, width, height, from] of FILES) {
    for (const kind of ['bytes', 'Blob'] as const) {
      const skip = gammaOnCanvas && kind === 'Blob' && name.endsWith('.png');
      const reason = skip
        ? ` [skipped in ${server.browser}: its createImageBitmap applies gAMA]`
        : '';
      it.skipIf(skip)(
        `${name} from ${kind}: as its truth, uint8 and float32, 1 and 3 channels${reason}`,
        async () => {
          const file = await load(name);
          const raw = await load(name.replace(/\.\w+$/, '.raw'));
          expect(raw.length).toBe(width * height * from);
          const input = kind === 'Blob' ? new Blob([file as Uint8Array<ArrayBuffer>]) : file;
          for (const to of [1, 3] as const) {
            const truth = asChannels(raw, from, to);
            const bytes = await new ImageDecoder({ channels: to, dtype: 'uint8' }).decode(input);
            expect([bytes.width, bytes.height]).toEqual([width, height]);
            let worst = 0;
            for (let k = 0; k < truth.length; k++) {
              worst = Math.max(worst, Math.abs((bytes.data[k] as number) - (truth[k] as number)));
            }
            expect(worst, `${to} channels: largest difference`).toBe(0);
            const floats = await new ImageDecoder({ channels: to }).decode(input);
            for (let k = 0; k < truth.length; k += 7) {
              expect(floats.data[k]).toBeCloseTo((truth[k] as number) / 255, 2);
            }
          }
        },
      );
    }
  }
});
