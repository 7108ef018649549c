// The codec ceiling of the encoded tiers: the platform's decoder alone on the same images, in as
// many workers as the tier decodes in, by the path the library's ImageDecoder takes at its own
// size: WebCodecs' ImageDecoder (Chromium), the decoded frame read out with VideoFrame.copyTo
// in its own format (I420 for these JPEGs, BGRX for the PNGs) into one reused buffer; where
// WebCodecs is missing, createImageBitmap drawn and read back as RGBA from an OffscreenCanvas.
// No conversion to the tier's pixels: that is the library's work. The images arrive first
// ('load'), then 'run' decodes them all, 4 at once.
let images: Uint8Array[] = [];
let retries = 0;
let ctx: OffscreenCanvasRenderingContext2D | undefined;
/** One copyTo target per lane, reused. */
const targets: Uint8Array[] = [];

const typeOf = (bytes: Uint8Array) => (bytes[0] === 0x89 ? 'image/png' : 'image/jpeg');

async function webCodecs(bytes: Uint8Array, lane: number): Promise<number> {
  const decoder = new ImageDecoder({
    data: bytes as Uint8Array<ArrayBuffer>,
    type: typeOf(bytes),
    colorSpaceConversion: 'none',
    preferAnimation: false,
  });
  try {
    const { image } = await decoder.decode();
    try {
      const size = image.allocationSize();
      let out = targets[lane];
      if (!out || out.length < size) {
        out = new Uint8Array(size);
        targets[lane] = out;
      }
      await image.copyTo(out);
      return size;
    } finally {
      image.close();
    }
  } finally {
    decoder.close();
  }
}

async function canvas(bytes: Uint8Array): Promise<number> {
  const bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
    colorSpaceConversion: 'none',
    premultiplyAlpha: 'none',
  });
  if (!ctx) {
    const c = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d', {
      willReadFrequently: true,
    });
    if (!c) throw new Error('no 2D context');
    ctx = c;
  }
  ctx.drawImage(bitmap, 0, 0);
  const n = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data.length;
  bitmap.close();
  return n;
}

const decodeOne = (bytes: Uint8Array, lane: number): Promise<number> =>
  typeof ImageDecoder === 'function' ? webCodecs(bytes, lane) : canvas(bytes);

self.onmessage = async (
  e: MessageEvent<{ cmd: 'load'; images: Uint8Array[] } | { cmd: 'run' }>,
) => {
  if (e.data.cmd === 'load') {
    images = e.data.images;
    postMessage({ ok: true });
    return;
  }
  let next = 0;
  const lane = async (l: number) => {
    while (next < images.length) {
      const i = next++;
      // one retry, counted: Chromium failed valid images here once in a long run
      await decodeOne(images[i] as Uint8Array, l)
        .catch(() => {
          retries++;
          return decodeOne(images[i] as Uint8Array, l);
        })
        .catch((err: unknown) => {
          throw new Error(`image ${i} (${images[i]?.length} bytes): ${String(err)}`);
        });
    }
  };
  try {
    await Promise.all([lane(0), lane(1), lane(2), lane(3)]);
    if (retries > 0) console.error(`[bench] codec ceiling: ${retries} decode(s) retried`);
    postMessage({ ok: true });
  } catch (err) {
    postMessage({ error: String(err) });
  }
};
