/**
 * The DICOM attributes MedFusion reads, by keyword: the image description it
 * needs and the clinical tags a user may select as tabular fields. Identifying
 * attributes (PatientName, PatientID, PatientBirthDate, accession numbers,
 * institution and physician names, ...) are deliberately absent: they cannot
 * be selected, and no value of any tag is ever put in a message.
 */
const TAGS = {
  // image pixel description (PS3.3 C.7.6.3)
  SamplesPerPixel: ['00280002', 'US'],
  PhotometricInterpretation: ['00280004', 'CS'],
  PlanarConfiguration: ['00280006', 'US'],
  NumberOfFrames: ['00280008', 'IS'],
  Rows: ['00280010', 'US'],
  Columns: ['00280011', 'US'],
  BitsAllocated: ['00280100', 'US'],
  BitsStored: ['00280101', 'US'],
  PixelRepresentation: ['00280103', 'US'],
  WindowCenter: ['00281050', 'DS'],
  WindowWidth: ['00281051', 'DS'],
  RescaleIntercept: ['00281052', 'DS'],
  RescaleSlope: ['00281053', 'DS'],
  // selectable clinical and acquisition attributes
  PatientAge: ['00101010', 'AS'],
  PatientSex: ['00100040', 'CS'],
  PatientSize: ['00101020', 'DS'],
  PatientWeight: ['00101030', 'DS'],
  Modality: ['00080060', 'CS'],
  BodyPartExamined: ['00180015', 'CS'],
  ViewPosition: ['00185101', 'CS'],
  Laterality: ['00200060', 'CS'],
  ImageLaterality: ['00200062', 'CS'],
  PixelSpacing: ['00280030', 'DS'],
  SliceThickness: ['00180050', 'DS'],
  SpacingBetweenSlices: ['00180088', 'DS'],
  KVP: ['00180060', 'DS'],
  ExposureTime: ['00181150', 'IS'],
  XRayTubeCurrent: ['00181151', 'IS'],
  RepetitionTime: ['00180080', 'DS'],
  EchoTime: ['00180081', 'DS'],
  MagneticFieldStrength: ['00180087', 'DS'],
  InstanceNumber: ['00200013', 'IS'],
  SeriesNumber: ['00200011', 'IS'],
} as const satisfies Record<string, readonly [string, string]>;

/** Keyword of an attribute MedFusion can read (see {@link DicomTagSpec}). */
export type DicomTagName = keyof typeof TAGS;

/** Value representation of a tag we read. */
export type TagVr = (typeof TAGS)[DicomTagName][1];

/** `[tag as 8 hex digits, VR]` of `name`, or undefined for an unknown keyword. */
export function tagOf(name: string): readonly [string, TagVr] | undefined {
  return Object.hasOwn(TAGS, name) ? TAGS[name as DicomTagName] : undefined;
}

/**
 * Reads attribute values, whatever holds them (a parsed Part 10 data set, a
 * DICOM JSON object): `tag` is 8 hex digits, `vr` the value representation.
 */
export interface TagReader {
  /** Whether the attribute is present with a value. */
  has(tag: string): boolean;
  /** Value `i` of a numeric attribute (US, SS, IS, DS, AS as years), undefined when absent or not numeric. */
  number(tag: string, vr: TagVr, i?: number): number | undefined;
  /** Value `i` of a string attribute, trimmed, undefined when absent. */
  string(tag: string, i?: number): string | undefined;
}

/** An Age String (`045Y`, `006M`, `003W`, `010D`) in years. */
export function ageInYears(value: string): number | undefined {
  const m = /^(\d{1,3})\s*([DWMY])?$/i.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  switch ((m[2] ?? 'Y').toUpperCase()) {
    case 'D':
      return n / 365.25;
    case 'W':
      return (n * 7) / 365.25;
    case 'M':
      return n / 12;
    default:
      return n;
  }
}
