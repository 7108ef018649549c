// The codec ceiling of the encoded tiers: the platform's decoder alone (createImageBitmap, drawn
// and read back as RGBA from an OffscreenCanvas) on the same images, in as many workers as the
// tier decodes in. The images arrive first ('load'), then 'run' decodes them all, 4 at once.
let images: Uint8Array[] = [];
let retries = 0;
let ctx: OffscreenCanvasRenderingContext2D | undefined;

async function decodeOne(bytes: Uint8Array): Promise<number> {
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

self.onmessage = async (
  e: MessageEvent<{ cmd: 'load'; images: Uint8Array[] } | { cmd: 'run' }>,
) => {
  if (e.data.cmd === 'load') {
    images = e.data.images;
    postMessage({ ok: true });
    return;
  }
  let next = 0;
  const lane = async () => {
    while (next < images.length) {
      const i = next++;
      // one retry, counted: Chromium failed valid images here once in a long run
      await decodeOne(images[i] as Uint8Array)
        .catch(() => {
          retries++;
          return decodeOne(images[i] as Uint8Array);
        })
        .catch((err: unknown) => {
          throw new Error(`image ${i} (${images[i]?.length} bytes): ${String(err)}`);
        });
    }
  };
  try {
    await Promise.all([lane(), lane(), lane(), lane()]);
    if (retries > 0) console.error(`[bench] codec ceiling: ${retries} decode(s) retried`);
    postMessage({ ok: true });
  } catch (err) {
    postMessage({ error: String(err) });
  }
};
