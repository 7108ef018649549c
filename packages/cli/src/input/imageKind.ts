import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';
import { checkPng as checkPngWith } from '@medfusion/core/internal/tar';
import type DicomParser from 'dicom-parser';

export type { ImageKind } from '@medfusion/core/internal/tar';
export { checkJpeg, sniffImage } from '@medfusion/core/internal/tar';

/** {@link checkPngWith} with zlib's CRC-32 (native, faster than the JavaScript one). */
export function checkPng(bytes: Uint8Array): { width: number; height: number } {
  return checkPngWith(bytes, crc32);
}

/** dicom-parser, loaded with the first DICOM file: packing PNG and JPEG files never loads it. */
let dicomParserModule: typeof DicomParser | undefined;
function dicomParser(): typeof DicomParser {
  dicomParserModule ??= createRequire(import.meta.url)('dicom-parser') as typeof DicomParser;
  return dicomParserModule;
}

/** What a DICOM file's header says (the tags the packer reads). */
export interface DicomInfo {
  /** PatientID (0010,0020), '' when absent: groups samples for `--split`. */
  patient: string;
  /** StudyInstanceUID (0020,000D), '' when absent. */
  study: string;
  /** Rows x Columns, when given. */
  rows?: number;
  /** Columns, when given. */
  columns?: number;
  /** Values of the tags `--keep-tags` asked for, by keyword (absent tags left out). */
  kept: Record<string, string>;
}

/** DICOM keywords `--keep-tags` knows, with their tags (dicom-parser's `xggggeeee` form). */
export const DICOM_KEYWORDS: Readonly<Record<string, string>> = {
  Modality: 'x00080060',
  StudyDescription: 'x00081030',
  SeriesDescription: 'x0008103e',
  BodyPartExamined: 'x00180015',
  PatientAge: 'x00101010',
  PatientSex: 'x00100040',
  PatientSize: 'x00101020',
  PatientWeight: 'x00101030',
  Manufacturer: 'x00080070',
  ManufacturerModelName: 'x00081090',
  SliceThickness: 'x00180050',
  PixelSpacing: 'x00280030',
  KVP: 'x00180060',
  ViewPosition: 'x00185101',
  ImageLaterality: 'x00200062',
  Laterality: 'x00200060',
  PhotometricInterpretation: 'x00280004',
  BitsStored: 'x00280101',
  Rows: 'x00280010',
  Columns: 'x00280011',
  InstanceNumber: 'x00200013',
  SeriesNumber: 'x00200011',
  // Identifying: stored only when named in --keep-tags.
  PatientID: 'x00100020',
  PatientName: 'x00100010',
  PatientBirthDate: 'x00100030',
  AccessionNumber: 'x00080050',
  StudyInstanceUID: 'x0020000d',
  SeriesInstanceUID: 'x0020000e',
  SOPInstanceUID: 'x00080018',
  StudyDate: 'x00080020',
  InstitutionName: 'x00080080',
  ReferringPhysicianName: 'x00080090',
};

/**
 * Parse a DICOM Part 10 file's header (dicom-parser) and check it holds pixel
 * data (7FE0,0010) inside the file. Returns the grouping tags and the values of
 * `keepTags`. Throws an Error saying what is wrong (truncated, no pixel data).
 */
export function checkDicom(bytes: Uint8Array, keepTags: readonly string[]): DicomInfo {
  let ds: DicomParser.DataSet;
  try {
    ds = dicomParser().parseDicom(bytes);
  } catch (error) {
    const why =
      typeof error === 'string'
        ? error
        : error instanceof Error
          ? error.message
          : ((error as { exception?: string })?.exception ?? String(error));
    throw new Error(`not a readable DICOM Part 10 file: ${why}`);
  }
  const pixels = ds.elements.x7fe00010;
  if (!pixels) throw new Error('DICOM file has no pixel data (7FE0,0010)');
  // ds.byteArray: the data set as parsed (inflated for Deflated Explicit VR Little Endian).
  if (pixels.length !== 0xffffffff && pixels.dataOffset + pixels.length > ds.byteArray.length) {
    throw new Error('truncated DICOM: the pixel data runs past the end of the file');
  }
  const kept: Record<string, string> = {};
  for (const keyword of keepTags) {
    const tag = DICOM_KEYWORDS[keyword] as string;
    const value = ds.string(tag);
    if (value !== undefined) kept[keyword] = value;
  }
  const info: DicomInfo = {
    patient: ds.string('x00100020') ?? '',
    study: ds.string('x0020000d') ?? '',
    kept,
  };
  const rows = ds.uint16('x00280010');
  const columns = ds.uint16('x00280011');
  if (rows !== undefined) info.rows = rows;
  if (columns !== undefined) info.columns = columns;
  return info;
}
