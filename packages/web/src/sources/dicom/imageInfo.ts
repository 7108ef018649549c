import { DicomError } from './DicomError.js';
import { type TagReader, tagOf } from './dicomTags.js';

/** What the pixel pipeline needs to know about an image (PS3.3 C.7.6.3 and C.11). */
export interface DicomImageInfo {
  /** Rows (height). */
  rows: number;
  /** Columns (width). */
  columns: number;
  /** Samples per pixel: 1 (grey) or 3 (colour). */
  samplesPerPixel: number;
  /** Bits allocated per sample: 8 or 16 (32 read as well). */
  bitsAllocated: number;
  /** Bits stored per sample (the rest are padding). */
  bitsStored: number;
  /** 0 unsigned, 1 two's complement. */
  pixelRepresentation: number;
  /** MONOCHROME1, MONOCHROME2, RGB, YBR_FULL, YBR_FULL_422, ... */
  photometricInterpretation: string;
  /** 0 interleaved (R G B R G B), 1 planar (R R ... G G ... B B ...). */
  planarConfiguration: number;
  /** Frames in the object. */
  numberOfFrames: number;
  /** Rescale Slope (1 when absent). */
  rescaleSlope: number;
  /** Rescale Intercept (0 when absent). */
  rescaleIntercept: number;
  /** The file's first Window Center, when it has one. */
  windowCenter?: number;
  /** The file's first Window Width, when it has one. */
  windowWidth?: number;
}

function num(reader: TagReader, name: string): number | undefined {
  const [tag, vr] = tagOf(name) as readonly [string, never];
  return reader.number(tag, vr);
}

function required(reader: TagReader, name: string, where: string, index?: number): number {
  const v = num(reader, name);
  if (v === undefined || !Number.isFinite(v)) {
    throw new DicomError(
      'DICOM_MISSING_TAG',
      `${where}: the image tag ${name} is missing, so the pixels cannot be read`,
      index === undefined ? undefined : { index },
    );
  }
  return v;
}

/** The image description of an object; throws `DICOM_MISSING_TAG` naming a missing image tag. */
export function readImageInfo(reader: TagReader, where: string, index?: number): DicomImageInfo {
  const info: DicomImageInfo = {
    rows: required(reader, 'Rows', where, index),
    columns: required(reader, 'Columns', where, index),
    samplesPerPixel: num(reader, 'SamplesPerPixel') ?? 1,
    bitsAllocated: required(reader, 'BitsAllocated', where, index),
    bitsStored: 0,
    pixelRepresentation: num(reader, 'PixelRepresentation') ?? 0,
    photometricInterpretation:
      reader.string(tagOf('PhotometricInterpretation')?.[0] as string) ?? 'MONOCHROME2',
    planarConfiguration: num(reader, 'PlanarConfiguration') ?? 0,
    numberOfFrames: Math.max(1, num(reader, 'NumberOfFrames') ?? 1),
    rescaleSlope: num(reader, 'RescaleSlope') ?? 1,
    rescaleIntercept: num(reader, 'RescaleIntercept') ?? 0,
  };
  info.bitsStored = num(reader, 'BitsStored') ?? info.bitsAllocated;
  const center = num(reader, 'WindowCenter');
  const width = num(reader, 'WindowWidth');
  if (center !== undefined && width !== undefined) {
    info.windowCenter = center;
    info.windowWidth = width;
  }
  if (![8, 16, 32].includes(info.bitsAllocated) || ![1, 3].includes(info.samplesPerPixel)) {
    throw new DicomError(
      'DICOM_UNSUPPORTED',
      `${where}: ${info.bitsAllocated} bits allocated with ${info.samplesPerPixel} samples per pixel is not supported (8, 16 or 32 bits; 1 or 3 samples)`,
      index === undefined ? undefined : { index },
    );
  }
  return info;
}

/** Samples in one frame. */
export function frameLength(info: DicomImageInfo): number {
  return info.rows * info.columns * info.samplesPerPixel;
}

/** Bytes of one frame as native (uncompressed) pixel data, as RLE decodes to. */
export function frameBytes(info: DicomImageInfo): number {
  return frameLength(info) * (info.bitsAllocated >>> 3);
}
