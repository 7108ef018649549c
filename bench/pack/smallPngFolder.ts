// An ImageFolder of `n` small distinct PNGs (16x16 grey noise, ~340 bytes each):
// `<root>/class<k>/img<i>.png` over 10 class folders. The archive-scale bench rows
// (issue 45) pack it. Returns the input's bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'fast-png';

/** Write the folder; `onProgress` hears every 100,000 files. */
export function writeSmallPngFolder(
  root: string,
  n: number,
  onProgress?: (done: number) => void,
): number {
  const classes = 10;
  for (let k = 0; k < classes; k++) mkdirSync(join(root, `class${k}`), { recursive: true });
  const pixels = new Uint8Array(256);
  let bytes = 0;
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < pixels.length; p += 4) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      pixels[p] = x;
      pixels[p + 1] = x >>> 8;
      pixels[p + 2] = x >>> 16;
      pixels[p + 3] = x >>> 24;
    }
    pixels[0] = i; // distinct even if the generator repeats
    pixels[1] = i >>> 8;
    pixels[2] = i >>> 16;
    const png = encode({ width: 16, height: 16, data: pixels, channels: 1 });
    writeFileSync(join(root, `class${i % classes}`, `img${String(i).padStart(8, '0')}.png`), png);
    bytes += png.length;
    if (onProgress && (i + 1) % 100_000 === 0) onProgress(i + 1);
  }
  return bytes;
}

if (process.argv[1]?.endsWith('smallPngFolder.ts')) {
  const [root, n] = process.argv.slice(2);
  const bytes = writeSmallPngFolder(root as string, Number(n), (d) => console.error(`${d} files`));
  console.log(bytes);
}
