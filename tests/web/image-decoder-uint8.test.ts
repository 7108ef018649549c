// ImageDecoder's dtype 'uint8': the file's 8-bit values, channels interleaved, in a fresh array
// the caller keeps, on every decode path (fast-png for small plain PNG bytes, the platform's
// decoder for a Blob and for images over 128²: WebCodecs where the engine has it, else the
// canvas). Truth: the pixels this test writes, encoded by fast-png (lossless).
import { ImageDecoder } from '@medfusion/web';
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';

function pixels(width: number, height: number, channels: 1 | 3 | 4): Uint8Array {
  const data = new Uint8Array(width * height * channels);
  for (let k = 0; k < data.length; k++) data[k] = (k * 37 + 11) % 256;
  if (channels === 4) for (let k = 3; k < data.length; k += 4) data[k] = 255;
  return data;
}

/** What `channels` of uint8 the written pixels are: RGB (grey repeated) or rounded luminance. */
function expected(src: Uint8Array, from: 1 | 3 | 4, to: 1 | 3): Uint8Array {
  const n = src.length / from;
  const out = new Uint8Array(n * to);
  for (let p = 0; p < n; p++) {
    const [r, g, b] = from === 1 ? [src[p], src[p], src[p]] : src.subarray(p * from, p * from + 3);
    if (to === 3) out.set([r as number, g as number, b as number], p * 3);
    else out[p] = Math.round(0.299 * (r as number) + 0.587 * (g as number) + 0.114 * (b as number));
  }
  return out;
}

const sizes = [
  [13, 7],
  [160, 130],
] as const;

describe("ImageDecoder dtype 'uint8'", () => {
  for (const [width, height] of sizes) {
    for (const from of [1, 3, 4] as const) {
      for (const to of [1, 3] as const) {
        it(`${width}×${height}, ${from} → ${to} channels: the written values, from bytes and from a Blob`, async () => {
          const src = pixels(width, height, from);
          const png = encode({ width, height, data: src, depth: 8, channels: from });
          const decoder = new ImageDecoder({ channels: to, dtype: 'uint8' });
          const truth = expected(src, from, to);
          for (const input of [png, new Blob([png as Uint8Array<ArrayBuffer>])]) {
            const out = await decoder.decode(input);
            expect(out.data).toBeInstanceOf(Uint8Array);
            expect([out.width, out.height, out.channels]).toEqual([width, height, to]);
            expect(out.data.length).toBe(width * height * to);
            let wrong = 0;
            for (let k = 0; k < truth.length; k++) if (out.data[k] !== truth[k]) wrong++;
            expect(wrong, `${input instanceof Blob ? 'Blob' : 'bytes'}: values off`).toBe(0);
          }
        });
      }
    }
  }

  it('float32 stays the default: the same values / 255', async () => {
    const src = pixels(160, 130, 3);
    const png = encode({ width: 160, height: 130, data: src, depth: 8, channels: 3 });
    const floats = await new ImageDecoder({ channels: 3 }).decode(png);
    const bytes = await new ImageDecoder({ channels: 3, dtype: 'uint8' }).decode(png);
    expect(floats.data).toBeInstanceOf(Float32Array);
    for (let k = 0; k < src.length; k++) {
      expect(floats.data[k]).toBeCloseTo((bytes.data[k] as number) / 255, 6);
    }
  });

  it("each decode's pixels are the caller's: a fresh buffer of their own, transferable", async () => {
    const png = encode({
      width: 160,
      height: 130,
      data: pixels(160, 130, 3),
      depth: 8,
      channels: 3,
    });
    const decoder = new ImageDecoder({ channels: 3, dtype: 'uint8' });
    const [a, b] = await Promise.all([decoder.decode(png), decoder.decode(png)]);
    expect(a.data.buffer).not.toBe(b.data.buffer);
    const copy = a.data.slice();
    const moved = structuredClone(a.data, { transfer: [a.data.buffer as ArrayBuffer] });
    expect(moved).toEqual(copy);
    expect(b.data).toEqual(copy); // b is untouched by a's transfer
  });

  it('refuses a dtype it does not know, naming the option', () => {
    expect(() => new ImageDecoder({ dtype: 'uint16' as never })).toThrow(RangeError);
    expect(() => new ImageDecoder({ dtype: 'uint16' as never })).toThrow(/dtype.*"uint16"/);
    expect(() => new ImageDecoder({ dtype: 8 as never })).toThrow(TypeError);
  });
});
