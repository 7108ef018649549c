// The bench's data: seeded 64×64 grayscale PNGs, label = index % 2, horizontal (0) or
// vertical (1) stripes under noise, encoded once with fast-png.
import { encode } from 'fast-png';

/** Side of the square images (the page's sample.ts uses the same). */
export const PNG_SIZE = 64;

/** `n` seeded PNGs, pre-encoded. */
export function generatePngs(n: number): Uint8Array[] {
  let a = 0x5eed;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: Uint8Array[] = [];
  const data = new Uint8Array(PNG_SIZE * PNG_SIZE);
  for (let i = 0; i < n; i++) {
    const vertical = i % 2 === 1;
    const period = 4 + Math.floor(rand() * 8);
    for (let y = 0; y < PNG_SIZE; y++) {
      for (let x = 0; x < PNG_SIZE; x++) {
        const stripe = Math.floor((vertical ? x : y) / period) % 2 === 0 ? 170 : 60;
        data[y * PNG_SIZE + x] = Math.max(
          0,
          Math.min(255, stripe + Math.floor((rand() - 0.5) * 80)),
        );
      }
    }
    out.push(encode({ width: PNG_SIZE, height: PNG_SIZE, data, channels: 1, depth: 8 }));
  }
  return out;
}
