/**
 * The DICOM test images: pixel formulas and attributes, shared by the Node
 * fixture builder (tests/setup/dicomFixtures.ts writes them, DCMTK and GDCM
 * transcode them) and the browser tests (which recompute the expected pixels).
 * No imports: it runs in both places.
 */

/** One source image, written as Explicit VR Little Endian before transcoding. */
export interface FixtureImage {
  /** File stem. */
  name: string;
  rows: number;
  columns: number;
  frames: number;
  samplesPerPixel: 1 | 3;
  bitsAllocated: 8 | 16;
  /** Bits stored, when fewer than allocated. */
  bitsStored?: number;
  signed: boolean;
  photometric: 'MONOCHROME1' | 'MONOCHROME2' | 'RGB';
  rescaleSlope: number;
  rescaleIntercept: number;
  windowCenter?: number;
  windowWidth?: number;
  /** Stored sample at (frame, y, x, channel). */
  value(f: number, y: number, x: number, c: number): number;
}

/**
 * How most CT is stored, one grey frame: 12 of 16 bits, unsigned, Rescale Intercept -1024
 * (stored 0 is -1024 HU). Spread into an image with its name, size and values.
 */
export const CT_12_BIT = {
  frames: 1,
  samplesPerPixel: 1,
  bitsAllocated: 16,
  bitsStored: 12,
  signed: false,
  photometric: 'MONOCHROME2',
  rescaleSlope: 1,
  rescaleIntercept: -1024,
} as const satisfies Partial<FixtureImage>;

/** CT-like: 16-bit signed, Rescale Slope 2 / Intercept -10, a soft-tissue window. */
export const CT16: FixtureImage = {
  name: 'ct16',
  rows: 64,
  columns: 48,
  frames: 1,
  samplesPerPixel: 1,
  bitsAllocated: 16,
  signed: true,
  photometric: 'MONOCHROME2',
  rescaleSlope: 2,
  rescaleIntercept: -10,
  windowCenter: 40,
  windowWidth: 400,
  value: (_f, y, x) => ((x * 37 + y * 101) % 4000) - 2000,
};

/** 8-bit grey, smooth (for the lossy syntaxes). */
export const GRAY8: FixtureImage = {
  name: 'gray8',
  rows: 64,
  columns: 64,
  frames: 1,
  samplesPerPixel: 1,
  bitsAllocated: 8,
  signed: false,
  photometric: 'MONOCHROME2',
  rescaleSlope: 1,
  rescaleIntercept: 0,
  value: (_f, y, x) => Math.round(128 + 100 * Math.sin(x / 9) * Math.cos(y / 11)),
};

/** 8-bit MONOCHROME1 (inverted grey). */
export const MONO1: FixtureImage = {
  ...GRAY8,
  name: 'mono1',
  photometric: 'MONOCHROME1',
  value: (_f, y, x) => (x * 3 + y * 5) % 256,
};

/** 8-bit RGB. */
export const RGB8: FixtureImage = {
  name: 'rgb8',
  rows: 16,
  columns: 24,
  frames: 1,
  samplesPerPixel: 3,
  bitsAllocated: 8,
  signed: false,
  photometric: 'RGB',
  rescaleSlope: 1,
  rescaleIntercept: 0,
  value: (_f, y, x, c) => (x * 10 + y * 7 + c * 80) % 256,
};

/** Three frames, 16-bit unsigned with 12 bits stored. */
export const MULTI: FixtureImage = {
  ...CT_12_BIT,
  name: 'multi',
  rows: 32,
  columns: 32,
  frames: 3,
  value: (f, y, x) => (f * 1000 + x * 40 + y * 3) % 4096,
};

/**
 * An image that puts the extremes where decoders slip: the first and last rows
 * and columns alternate between the representable minimum and maximum, the
 * interior walks [lo, hi] with sharp jumps, and the last pixel is `lo` after a
 * neighbour at `hi`. Grey, one frame, no rescale.
 */
function edgeImage(
  name: string,
  rows: number,
  columns: number,
  bits: { allocated: 8 | 16; stored?: number; signed: boolean },
  lo: number,
  hi: number,
): FixtureImage {
  const stored = bits.stored ?? bits.allocated;
  const min = bits.signed ? -(2 ** (stored - 1)) : 0;
  const max = bits.signed ? 2 ** (stored - 1) - 1 : 2 ** stored - 1;
  return {
    name,
    rows,
    columns,
    frames: 1,
    samplesPerPixel: 1,
    bitsAllocated: bits.allocated,
    ...(bits.stored === undefined ? {} : { bitsStored: bits.stored }),
    signed: bits.signed,
    photometric: 'MONOCHROME2',
    rescaleSlope: 1,
    rescaleIntercept: 0,
    value: (_f, y, x) => edgeValue(y, x, rows, columns, min, max, lo, hi),
  };
}

/** 16 bits signed, the interior a CT's range (-3024 to 3071). */
export const EDGE16 = edgeImage('edge16', 128, 128, { allocated: 16, signed: true }, -3024, 3071);
/** 12 of 16 bits stored, signed, odd size. */
export const EDGE12 = edgeImage(
  'edge12',
  127,
  129,
  { allocated: 16, stored: 12, signed: true },
  -2048,
  2047,
);
/** 16 bits unsigned, odd size. */
export const EDGEU16 = edgeImage('edgeu16', 129, 127, { allocated: 16, signed: false }, 0, 65535);
/** 8 bits unsigned, odd size. */
export const EDGE8 = edgeImage('edge8', 127, 129, { allocated: 8, signed: false }, 0, 255);

/** 8-bit RGB, odd size, each channel with extremes on the border. */
export const EDGERGB: FixtureImage = {
  ...edgeImage('edgergb', 33, 31, { allocated: 8, signed: false }, 0, 255),
  samplesPerPixel: 3,
  photometric: 'RGB',
  value: (_f, y, x, c) => {
    const v = edgeValue(y, x, 33, 31, 0, 255, 0, 255);
    return c === 0 ? v : c === 1 ? 255 - v : (v * 3) % 256;
  },
};

/**
 * The edge images' pixel: the border alternates between `min` and `max`, the
 * last pixel is `lo` after a neighbour at `hi`, and the interior walks
 * [lo, hi] in coarse steps with a sign change every few pixels.
 */
export function edgeValue(
  y: number,
  x: number,
  rows: number,
  columns: number,
  min: number,
  max: number,
  lo: number,
  hi: number,
): number {
  const lastRow = y === rows - 1;
  const lastCol = x >= columns - 1;
  if (lastRow && lastCol) return lo;
  if (lastRow && x === columns - 2) return hi;
  if (y === 0 || x === 0 || lastRow || lastCol) return (x + y) % 2 === 0 ? min : max;
  const span = hi - lo + 1;
  return lo + ((x * 997 + y * 7919 + ((x * y) % 13) * 4099) % span);
}

/**
 * A CT slice as scanners write it: air and tissue inside the field of view,
 * padding (-3024) in the corners outside it, Rescale Intercept -1024. The last
 * pixel sits in a run of padding: a zero difference whose short code ends the
 * coded data, where a decoder that guesses the data's end drops it (the bug
 * jpeg-lossless-decoder-js 2.1.2 had on this image, found from outside).
 */
export const PAD16: FixtureImage = {
  name: 'pad16',
  rows: 128,
  columns: 128,
  frames: 1,
  samplesPerPixel: 1,
  bitsAllocated: 16,
  signed: true,
  photometric: 'MONOCHROME2',
  rescaleSlope: 1,
  rescaleIntercept: -1024,
  value: (_f, y, x) => paddedValue(y, x, 128, 128, -1000, -3024),
};

/** {@link PAD16} at 12 bits stored, padding -2000. */
export const PAD12: FixtureImage = {
  ...PAD16,
  name: 'pad12',
  bitsStored: 12,
  value: (_f, y, x) => paddedValue(y, x, 128, 128, -1000, -2000),
};

/** Tissue-like values inside a circle of the image's half width, `padding` outside. */
export function paddedValue(
  y: number,
  x: number,
  rows: number,
  columns: number,
  inside: number,
  padding: number,
): number {
  const dy = y - rows / 2;
  const dx = x - columns / 2;
  if (dy * dy + dx * dx > (columns / 2) ** 2) return padding;
  return inside + ((x * 3 + y * 5) % 40);
}

export const IMAGES = [
  CT16,
  GRAY8,
  MONO1,
  RGB8,
  MULTI,
  EDGE16,
  EDGE12,
  EDGEU16,
  EDGE8,
  EDGERGB,
  PAD16,
  PAD12,
] as const;

/** Transfer syntax variants the builder makes, by file: `<image>-<variant>.dcm`. */
export interface FixtureFile {
  /** File name under the fixture folder. */
  file: string;
  /** Source image name. */
  image: string;
  /** Transfer Syntax UID of the file. */
  syntax: string;
  /** Largest difference from the source allowed after decoding (0 for lossless). */
  tolerance: number;
  /** Series Instance UID (each file its own series in Orthanc). */
  series: string;
  /** SOP Instance UID. */
  instance: string;
  /** Study Instance UID (one study for all). */
  study: string;
  /**
   * Another decoder's view of a compressed file (null for native files): `raw` names
   * `<file>.raw`, the samples of every frame as DCMTK (GDCM for JPEG 2000) decodes the
   * file, little endian; `slope` and `intercept` are the file's rescale.
   */
  truth: { raw: string; slope: number; intercept: number } | null;
}

/** `[image, variant, syntax, tolerance]` of every file the builder makes. */
export const VARIANTS: readonly (readonly [string, string, string, number])[] = [
  ['ct16', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['ct16', 'implicit', '1.2.840.10008.1.2', 0],
  ['ct16', 'deflated', '1.2.840.10008.1.2.1.99', 0],
  ['ct16', 'rle', '1.2.840.10008.1.2.5', 0],
  ['ct16', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['ct16', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['ct16', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['ct16', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['gray8', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['gray8', 'jpeg-baseline', '1.2.840.10008.1.2.4.50', 8],
  ['gray8', 'jpegls-near', '1.2.840.10008.1.2.4.81', 2],
  ['gray8', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['mono1', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['rgb8', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['rgb8', 'rle', '1.2.840.10008.1.2.5', 0],
  ['multi', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['multi', 'rle', '1.2.840.10008.1.2.5', 0],
  ['edge16', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['edge16', 'rle', '1.2.840.10008.1.2.5', 0],
  ['edge16', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['edge16', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['edge16', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['edge16', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['edge12', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['edge12', 'rle', '1.2.840.10008.1.2.5', 0],
  ['edge12', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['edge12', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['edge12', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['edge12', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['edgeu16', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['edgeu16', 'rle', '1.2.840.10008.1.2.5', 0],
  ['edgeu16', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['edgeu16', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['edgeu16', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['edgeu16', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['edge8', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['edge8', 'rle', '1.2.840.10008.1.2.5', 0],
  ['edge8', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['edge8', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['edge8', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['edge8', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['edgergb', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['edgergb', 'rle', '1.2.840.10008.1.2.5', 0],
  ['edgergb', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['edgergb', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['edgergb', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['edgergb', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['pad16', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['pad16', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['pad16', 'rle', '1.2.840.10008.1.2.5', 0],
  ['pad16', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['pad16', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['pad12', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['pad12', 'jpeg-lossless', '1.2.840.10008.1.2.4.57', 0],
  ['pad12', 'rle', '1.2.840.10008.1.2.5', 0],
  ['pad12', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['pad12', 'j2k', '1.2.840.10008.1.2.4.90', 0],
];

/** The stored samples of `image`, `[frames, H, W, C]`, as plain numbers. */
export function storedSamples(image: FixtureImage): number[] {
  const out: number[] = [];
  for (let f = 0; f < image.frames; f++)
    for (let y = 0; y < image.rows; y++)
      for (let x = 0; x < image.columns; x++)
        for (let c = 0; c < image.samplesPerPixel; c++) out.push(image.value(f, y, x, c));
  return out;
}

/**
 * The CD export tests/setup/dicomFixtures.ts writes (`writeCdExport`), paths relative
 * to the files URL: a DICOMDIR (made by DCMTK dcmmkdir) and two images.
 */
export const CD_EXPORT = {
  dicomdir: 'cd/DICOMDIR',
  /** [path in the export, fixture file it copies]. */
  images: [
    ['cd/IMAGES/IM1', 'ct16-explicit.dcm'],
    ['cd/IMAGES/IM2', 'multi-explicit.dcm'],
  ],
} as const;
