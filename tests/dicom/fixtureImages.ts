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
  name: 'multi',
  rows: 32,
  columns: 32,
  frames: 3,
  samplesPerPixel: 1,
  bitsAllocated: 16,
  bitsStored: 12,
  signed: false,
  photometric: 'MONOCHROME2',
  rescaleSlope: 1,
  rescaleIntercept: -1024,
  value: (f, y, x) => (f * 1000 + x * 40 + y * 3) % 4096,
};

export const IMAGES = [CT16, GRAY8, MONO1, RGB8, MULTI] as const;

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
