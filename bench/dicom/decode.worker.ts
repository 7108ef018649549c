// The bench's workers path: decodes the DICOM file `index` of the worker's name (a JSON list of
// URLs) and returns what the in-thread path gets, the Float32Array [H, W, C] (moved to the page by
// exposeLoader's transfer), plus how long the decode took inside the worker (the breakdown).
// Each file is fetched once per worker, as the in-thread path fetches it once per page.
import { exposeLoader } from '@medfusion/web';
import { DicomDecoder, type DicomImage } from '@medfusion/web/dicom';

/** What one call returns. */
export interface WorkerFrame {
  /** The decoded frame. */
  image: DicomImage['image'];
  /** Decode time inside the worker. */
  workMs: number;
  workerId: number;
}

const urls = JSON.parse(self.name) as string[];
const decoder = new DicomDecoder();
const files = new Map<number, Promise<Uint8Array>>();
/** Tells the two workers apart in the breakdown. */
const workerId = Math.random();

function bytesOf(index: number): Promise<Uint8Array> {
  let p = files.get(index);
  if (!p) {
    p = fetch(urls[index] as string).then(async (r) => new Uint8Array(await r.arrayBuffer()));
    files.set(index, p);
  }
  return p;
}

// index < n: decode file `index`; index >= n: the call overhead probe (n = number of files), a
// Float32Array of `index` floats.
exposeLoader(async (index): Promise<WorkerFrame> => {
  const n = urls.length;
  if (index >= n) {
    // the call overhead probe: a frame-sized result, no decode
    return { image: { data: new Float32Array(index), shape: [index, 1, 1] }, workMs: 0, workerId };
  }
  const bytes = await bytesOf(index);
  const t0 = performance.now();
  const { image } = await decoder.decode(bytes);
  const workMs = performance.now() - t0;
  return { image, workMs, workerId };
});
