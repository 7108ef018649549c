// The worker of `pnpm bench pipeline-decode`: fetches the first N demo PNGs once, then runs
// one method over all of them, `concurrency` at once: `canvas` = ImageDecoder on a Blob
// (createImageBitmap + OffscreenCanvas), `js` = ImageDecoder on the bytes (fast-png),
// `fetch` = the HTTP request alone, `get` = CsvImageDataset.get (request + decode).
import { CsvImageDataset, ImageDecoder } from '@medfusion/web';

/** What one probe call runs. */
export type Method = 'canvas' | 'js' | 'fetch' | 'get';
type Msg = { fetch: number } | { method: Method; concurrency: number };
const ds = CsvImageDataset.open({ csvUrl: '/data/manifest.csv', imageBaseUrl: '/data/images/' });
const bytes: Uint8Array[] = [];
const dec = new ImageDecoder({ channels: 1 });
const methods: Record<Method, (b: Uint8Array, i: number) => Promise<unknown>> = {
  canvas: (b) => dec.decode(new Blob([b as Uint8Array<ArrayBuffer>])),
  js: (b) => dec.decode(b),
  fetch: async (_b: Uint8Array, i: number) => {
    const r = await fetch(`/data/images/${String(i).padStart(4, '0')}.png`);
    return new Uint8Array(await r.arrayBuffer());
  },
  get: async (_b: Uint8Array, i: number) => (await ds).get(i),
};
self.onmessage = async (e: MessageEvent<Msg>) => {
  const m = e.data;
  if ('fetch' in m) {
    for (let i = 0; i < m.fetch; i++) {
      const r = await fetch(`/data/images/${String(i).padStart(4, '0')}.png`);
      bytes.push(new Uint8Array(await r.arrayBuffer()));
    }
    (self as unknown as Worker).postMessage(0);
    return;
  }
  const fn = methods[m.method];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: m.concurrency }, async () => {
      while (next < bytes.length) {
        const i = next++;
        await fn(bytes[i] as Uint8Array, i);
      }
    }),
  );
  (self as unknown as Worker).postMessage((performance.now() - t0) / bytes.length);
};
