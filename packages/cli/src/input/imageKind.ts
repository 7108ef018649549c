import { crc32 } from 'node:zlib';
import dicomParser from 'dicom-parser';

/** The image kinds `medfusion pack` stores, by the member extension they get. */
export type ImageKind = 'png' | 'jpg' | 'dcm';

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

/** The image kind of `bytes` by magic number, or undefined (not an image we pack). */
export function sniffImage(bytes: Uint8Array): ImageKind | undefined {
  if (
    bytes.length >= 8 &&
    bytes[0] === 0x89 &&
    bytes[1] === 0x50 &&
    bytes[2] === 0x4e &&
    bytes[3] === 0x47
  ) {
    return 'png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return 'jpg';
  if (
    bytes.length >= 132 &&
    bytes[128] === 0x44 &&
    bytes[129] === 0x49 &&
    bytes[130] === 0x43 &&
    bytes[131] === 0x4d
  ) {
    return 'dcm';
  }
  return undefined;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * Check a PNG's structure without decoding it: the signature, then a chain of
 * chunks, each inside the file and matching its CRC, starting with IHDR and
 * ending with IEND (a truncated file loses its IEND; a changed byte fails a CRC). Returns the size; throws an Error saying what is wrong.
 */
export function checkPng(bytes: Uint8Array): { width: number; height: number } {
  for (let i = 0; i < 8; i++)
    if (bytes[i] !== PNG_SIGNATURE[i]) throw new Error('not a PNG signature');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  let first = true;
  let width = 0;
  let height = 0;
  for (;;) {
    if (at + 12 > bytes.length)
      throw new Error(
        `truncated PNG: chunk header at byte ${at} runs past the end (${bytes.length} bytes), no IEND`,
      );
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (at + 12 + length > bytes.length) {
      throw new Error(
        `truncated PNG: chunk ${type} at byte ${at} needs ${length} bytes, the file ends first`,
      );
    }
    const crc = view.getUint32(at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== crc) {
      throw new Error(`corrupt PNG: chunk ${type} at byte ${at} fails its CRC`);
    }
    if (first) {
      if (type !== 'IHDR' || length < 13) throw new Error('PNG does not start with an IHDR chunk');
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      if (width === 0 || height === 0) throw new Error(`PNG size ${width}x${height}`);
      first = false;
    }
    at += 12 + length;
    if (type === 'IEND') return { width, height };
  }
}

/**
 * Check a JPEG's structure without decoding it: SOI, segments inside the file up
 * to the start of scan, a frame header (SOF) giving the size, and an EOI marker
 * at the end (trailing zero padding allowed). Throws an Error saying what is wrong.
 */
export function checkJpeg(bytes: Uint8Array): { width: number; height: number } {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('not a JPEG (no SOI marker)');
  let at = 2;
  let width = 0;
  let height = 0;
  for (;;) {
    while (at < bytes.length && bytes[at] === 0xff && bytes[at + 1] === 0xff) at++;
    if (at + 4 > bytes.length)
      throw new Error(`truncated JPEG: the file ends at byte ${bytes.length} before the scan data`);
    if (bytes[at] !== 0xff) throw new Error(`corrupt JPEG: no marker at byte ${at}`);
    const marker = bytes[at + 1] as number;
    const length = ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number);
    if (at + 2 + length > bytes.length)
      throw new Error(`truncated JPEG: segment at byte ${at} runs past the end`);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      height = ((bytes[at + 5] as number) << 8) | (bytes[at + 6] as number);
      width = ((bytes[at + 7] as number) << 8) | (bytes[at + 8] as number);
    }
    at += 2 + length;
    if (marker === 0xda) break;
  }
  if (width === 0 || height === 0)
    throw new Error('JPEG has no frame header (SOF) before its scan');
  let end = bytes.length;
  while (end > at && bytes[end - 1] === 0) end--;
  if (end < at + 2 || bytes[end - 2] !== 0xff || bytes[end - 1] !== 0xd9) {
    throw new Error('truncated JPEG: no EOI marker at the end');
  }
  return { width, height };
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
  let ds: dicomParser.DataSet;
  try {
    ds = dicomParser.parseDicom(bytes);
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
  if (pixels.length !== 0xffffffff && pixels.dataOffset + pixels.length > bytes.length) {
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
