// Fetch one generated PNG, decode it (createImageBitmap + OffscreenCanvas) and
// normalise it to Float32 in [0, 1]. Shared by the page (tf.data and in-thread
// rows) and the worker (worker row), so every row does exactly the same work.

/** Side of the square images the bench serves. */
export const SIZE = 64;

/** One decoded sample, in the shape the default collate stacks. */
export interface BenchSample {
  image: { data: Float32Array; shape: number[] };
  label: Float32Array;
}

let ctx: OffscreenCanvasRenderingContext2D | undefined;

/** Decode sample `index`, fetched from `origins[index % origins.length]`. */
export async function loadSample(
  origins: readonly string[],
  index: number,
  signal?: AbortSignal,
): Promise<BenchSample> {
  const res = await fetch(`${origins[index % origins.length]}/data/${index}.png`, { signal });
  if (!res.ok) throw new Error(`HTTP ${res.status} for sample ${index}`);
  const bitmap = await createImageBitmap(await res.blob());
  ctx ??=
    new OffscreenCanvas(SIZE, SIZE).getContext('2d', { willReadFrequently: true }) ?? undefined;
  if (ctx === undefined) throw new Error('no 2d context on OffscreenCanvas');
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  const rgba = ctx.getImageData(0, 0, SIZE, SIZE).data;
  const data = new Float32Array(SIZE * SIZE);
  for (let p = 0; p < data.length; p++) data[p] = (rgba[p * 4] as number) / 255;
  return { image: { data, shape: [SIZE, SIZE, 1] }, label: Float32Array.of(index % 2) };
}
