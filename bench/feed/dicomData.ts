// The data of the `dicom` tier of `pnpm bench feed`, made in Node: `samples` synthetic CT slices
// of 512x512, stored as most CT is (16 bits allocated, 12 stored, unsigned, Rescale Intercept
// -1024, so stored 0 is -1024 HU), each a chest-like cross-section (air, a body ellipse with a
// fat rim, two lungs with vessels, a heart, a spine, its size and position changing with the
// slice) plus noise of ~12 HU, as a scanner's is. Written as Explicit VR Little Endian by the
// DICOM tests' writer (dcmjs), encoded JPEG Lossless process 14 SV1 by DCMTK (`dcmcjpeg +e1`,
// transfer syntax 1.2.840.10008.1.2.4.70), the .dcm files packed as they are by
// `medfusion pack` (a folder of DICOM files, `--folder-labels`), as a user packs a DICOM export.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CT_12_BIT, type FixtureImage } from '../../tests/dicom/fixtureImages.js';
import { transcode, writeExplicit } from '../../tests/setup/dicomFixtures.js';
import { members, packFolder } from './data.js';
import type { Member } from './types.js';

/** Side of the stored slices (the tier resizes them to 224²). */
export const CT_SIDE = 512;
/** The folder of the tier's shards under the data root (and its URL path). */
const DIR = 'dicom';
const STUDY = '1.2.826.0.1.3680043.10.1104.47.1';

/** Roughly normal noise of standard deviation `sd` from a hash of (slice, y, x). */
function noise(i: number, y: number, x: number, sd: number): number {
  let h = (Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(i + 1, 83492791)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  // the sum of 4 uniform bytes: mean 510, standard deviation ~147.8
  const s = (h & 255) + ((h >>> 8) & 255) + ((h >>> 16) & 255) + (h >>> 24);
  return ((s - 510) * sd) / 147.8;
}

const inEllipse = (x: number, y: number, cx: number, cy: number, rx: number, ry: number) =>
  ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;

/** Slice `i` of `n`: Hounsfield units at (y, x), before noise. */
function hounsfield(i: number, n: number, y: number, x: number): number {
  const z = n > 1 ? i / (n - 1) : 0.5;
  const c = CT_SIDE / 2;
  if ((x - c) ** 2 + (y - c) ** 2 > (c - 6) ** 2) return -1024; // outside the field of view
  const bx = 200 + 20 * Math.sin(z * 3);
  const by = 140 + 15 * Math.cos(z * 2);
  const cy = c + 10;
  if (!inEllipse(x, y, c, cy, bx, by)) return -1000; // air
  if (!inEllipse(x, y, c, cy, bx - 12, by - 12)) return -100; // fat under the skin
  if (inEllipse(x, y, c, cy + by - 45, 22, 20)) return 700; // a vertebra
  const lung = 0.45 + 0.4 * Math.sin(Math.PI * z); // the lungs grow then shrink along the series
  for (const side of [-1, 1]) {
    const lx = c + side * bx * 0.45;
    if (inEllipse(x, y, lx, cy - 5, bx * 0.35 * lung + 20, by * 0.7 * lung + 15)) {
      // vessels: small bright dots on a grid that moves with the slice
      const vx = (x + i * 3) % 23;
      const vy = (y + i * 5) % 29;
      return vx < 3 && vy < 3 ? 40 : -850;
    }
  }
  if (inEllipse(x, y, c + 25, cy - 20, 60 + 20 * z, 50)) return 45; // the heart
  return 40 + 15 * Math.sin(x / 17) * Math.cos(y / 23); // soft tissue
}

/** Slice `i` of `n` as a fixture image for the DICOM tests' writer. */
function ctSlice(i: number, n: number): FixtureImage {
  return {
    ...CT_12_BIT,
    name: `s${String(i).padStart(6, '0')}`,
    rows: CT_SIDE,
    columns: CT_SIDE,
    windowCenter: 40,
    windowWidth: 400,
    value: (_f, y, x) => {
      const hu = hounsfield(i, n, y, x);
      const stored = Math.round(hu + 1024 + (hu > -1024 ? noise(i, y, x, 12) : 0));
      return Math.max(0, Math.min(4095, stored));
    },
  };
}

/**
 * Make (or, when `root` already holds them, reuse) the `dicom` tier's shards; its members.
 * Needs DCMTK on PATH (`ensureDicomTools`).
 */
export function buildDicomFeedData(root: string, samples: number): Member[] {
  const dir = join(root, DIR);
  if (!existsSync(join(dir, 'manifest.json'))) {
    const src = join(root, 'src-dcm');
    rmSync(src, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    for (let i = 0; i < samples; i++) {
      const image = ctSlice(i, samples);
      const label = join(src, String(i % 10));
      mkdirSync(label, { recursive: true });
      const explicit = join(label, `${image.name}.explicit`);
      writeFileSync(explicit, writeExplicit(image, STUDY));
      transcode('jpeg-lossless-sv1', explicit, join(label, `${image.name}.dcm`));
      rmSync(explicit);
    }
    packFolder(src, dir);
    rmSync(src, { recursive: true });
  }
  return members(dir, `/${DIR}`, 'dcm');
}
