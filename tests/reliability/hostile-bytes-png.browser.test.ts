// Hostile data, item 6 (images): a 190 KB PNG that claims 14,000 × 14,000 pixels
// (784 MB of RGBA once decoded; it cost 1.5 GB even when resized to 64 × 64) is refused
// from its header, before anything is decoded: a SizeLimitError naming the image, and
// createImageBitmap is never called (a spy counts the calls: that is the memory bound —
// nothing is decoded, so nothing of the image's size is allocated). Images under the
// cap are decoded at the target size by createImageBitmap itself (resize options).
import { CsvImageDataset, ImageDecoder, LoadError, SizeLimitError } from '@medfusion/web';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bounded, HANG_MS, report } from './harness.js';

const images = new URL('/tests/web/fixtures/csv-images/images/', location.origin).href;

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A real grayscale PNG of `side` × `side` black pixels: rows of zeros, deflated. */
async function blackPng(side: number): Promise<Uint8Array> {
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, side);
  dv.setUint32(4, side);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit grayscale
  const row = new Uint8Array(side + 1); // filter byte 0, then zeros
  const rowsPerChunk = Math.max(1, Math.floor((1 << 20) / row.length));
  const block = new Uint8Array(row.length * rowsPerChunk);
  let left = side;
  const raw = new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (left <= 0) return controller.close();
      const n = Math.min(left, rowsPerChunk);
      left -= n;
      controller.enqueue(block.subarray(0, n * row.length));
    },
  });
  const idat = new Uint8Array(
    await new Response(raw.pipeThrough(new CompressionStream('deflate'))).arrayBuffer(),
  );
  const parts: Uint8Array<ArrayBuffer>[] = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array(0)),
  ];
  return new Uint8Array(await new Blob(parts).arrayBuffer());
}

let bomb: Uint8Array | undefined;
const original = globalThis.createImageBitmap;
let calls: unknown[] = [];

beforeEach(() => {
  calls = [];
  globalThis.createImageBitmap = ((image: ImageBitmapSource, options?: ImageBitmapOptions) => {
    calls.push(options);
    return original(image, options);
  }) as typeof createImageBitmap;
});
afterEach(() => {
  globalThis.createImageBitmap = original;
});

async function theBomb(): Promise<Uint8Array> {
  bomb ??= await blackPng(14_000);
  return bomb;
}

describe('hostile images: a decompression bomb', () => {
  it('ImageDecoder refuses a 14,000 × 14,000 PNG from its header, decoding nothing', async (ctx) => {
    const png = await theBomb();
    expect(png.length).toBeLessThan(400 * 1024); // a small file…
    const decoder = new ImageDecoder({ width: 64, height: 64 });
    let error: unknown;
    const { ms } = await bounded('decode', HANG_MS, async () => {
      try {
        await decoder.decode(new Blob([png as Uint8Array<ArrayBuffer>]), 'bomb.png');
      } catch (e) {
        error = e;
      }
    });
    expect(error).toBeInstanceOf(SizeLimitError);
    expect(error).toMatchObject({ code: 'SIZE_LIMIT', claimed: 196_000_000, allowed: 2 ** 26 });
    expect(String((error as Error).message)).toBe(
      'image bomb.png (14000 × 14000) claims 196,000,000 pixels, more than maxPixels 67,108,864',
    );
    expect(calls).toHaveLength(0); // …of which nothing was decoded
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: `PNG claiming 14,000 × 14,000 (${Math.round(png.length / 1024)} KB)`,
      figures: { ms: Math.round(ms), decodes: calls.length },
    });
  });

  it('CsvImageDataset.get fails that row with LOAD_FAILED caused by SIZE_LIMIT naming the URL', async () => {
    const png = await theBomb();
    const fetchFn: typeof fetch = async (input) => {
      const url = String(input);
      if (url.endsWith('.csv')) return new Response('image,label\ng0.png,1\nbomb.png,0\n');
      if (url.endsWith('bomb.png')) return new Response(png as Uint8Array<ArrayBuffer>);
      return fetch(input);
    };
    const ds = await CsvImageDataset.open({
      csvUrl: `${images}manifest.csv`,
      imageBaseUrl: images,
      fetch: fetchFn,
      width: 64,
      height: 64,
    });
    const { value: error } = await bounded('get', HANG_MS, () => ds.get(1).catch((e) => e));
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).cause).toBeInstanceOf(SizeLimitError);
    expect(String((error as Error).message)).toContain(`image ${images}bomb.png (14000 × 14000)`);
    expect(calls).toHaveLength(0);
    expect((await ds.get(0)).image).toHaveLength(64 * 64);
  });

  it('an image under the cap is decoded at the target size by createImageBitmap', async () => {
    const bytes = new Uint8Array(await (await fetch(`${images}g0.png`)).arrayBuffer());
    const { data, width, height } = await new ImageDecoder({ width: 4, height: 2 }).decode(bytes);
    expect([width, height, data.length]).toEqual([4, 2, 8]);
    expect(calls).toEqual([expect.objectContaining({ resizeWidth: 4, resizeHeight: 2 })]);
    await expect(new ImageDecoder({ maxPixels: 63 }).decode(bytes, 'g0.png')).rejects.toThrow(
      'image g0.png (8 × 8) claims 64 pixels, more than maxPixels 63',
    );
    expect(() => new ImageDecoder({ maxPixels: 0 })).toThrow(
      /maxPixels must be a positive integer, got 0/,
    );
  });
});
