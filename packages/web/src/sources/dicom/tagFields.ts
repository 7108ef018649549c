import { arrayOf, bool, nonNegativeInt, showValue, withDefault } from '@medfusion/core/internal';
import { DicomError } from './DicomError.js';
import { ageInYears, type DicomTagName, type TagReader, type TagVr, tagOf } from './dicomTags.js';

/** One selected attribute, read as a number into `tabular`. */
export interface DicomTagSpec {
  /** The attribute's keyword. */
  name: DicomTagName;
  /**
   * Fail the sample with `DICOM_MISSING_TAG` when the attribute is absent
   * (else its value is NaN).
   * @default false
   */
  required?: boolean;
  /**
   * Which value of a multi-valued attribute (PixelSpacing is `[row, column]`).
   * @default 0
   */
  valueIndex?: number;
  /**
   * For code strings (Modality, BodyPartExamined, ViewPosition, ...): the value
   * is its position in this list, NaN when not listed. Required for code
   * strings except PatientSex, which defaults to `['M', 'F', 'O']`.
   * @example ['CT', 'MR', 'CR', 'DX']
   */
  categories?: readonly string[];
}

/** A compiled {@link DicomTagSpec}. */
interface TagField {
  label: string;
  name: string;
  tag: string;
  vr: TagVr;
  required: boolean;
  valueIndex: number;
  categories: Map<string, number> | undefined;
}

/** The `tags` option, checked once and read per object. */
export class TagFields {
  /** Names of the values, in `tabular` order (`PixelSpacing[1]` for value 1). */
  readonly labels: readonly string[];
  private readonly fields: readonly TagField[];

  constructor(option: readonly (DicomTagName | DicomTagSpec)[] | undefined) {
    const entries = withDefault('tags', option, [], (n, v) =>
      arrayOf(
        n,
        v,
        (_, e) => e as DicomTagName | DicomTagSpec,
        'an array of tag keywords or specs',
      ),
    );
    this.fields = entries.map((entry, i) => compile(entry, i));
    this.labels = this.fields.map((f) => f.label);
  }

  /** Read every selected value into `out` from `offset`; `where` names the object in errors. */
  read(reader: TagReader, out: Float32Array, offset: number, where: string, index?: number): void {
    for (let i = 0; i < this.fields.length; i++) {
      const f = this.fields[i] as TagField;
      let v: number | undefined;
      if (f.categories) {
        const s = reader.string(f.tag, f.valueIndex);
        v = s === undefined ? undefined : (f.categories.get(s.toUpperCase()) ?? Number.NaN);
      } else {
        v = reader.number(f.tag, f.vr, f.valueIndex);
      }
      if (v === undefined && f.required) {
        // The tag's name only: never a value (it may identify the patient).
        throw new DicomError(
          'DICOM_MISSING_TAG',
          `${where}: required tag ${f.name} (${f.tag.slice(0, 4)},${f.tag.slice(4)}) is missing`,
          index === undefined ? undefined : { index },
        );
      }
      out[offset + i] = v ?? Number.NaN;
    }
  }
}

function compile(entry: DicomTagName | DicomTagSpec, i: number): TagField {
  const spec: DicomTagSpec = typeof entry === 'string' ? { name: entry } : entry;
  if (spec === null || typeof spec !== 'object' || typeof spec.name !== 'string') {
    throw new TypeError(
      `tags[${i}] must be a tag keyword or { name, ... }, got ${showValue(entry)}`,
    );
  }
  const known = tagOf(spec.name);
  if (!known) {
    throw new RangeError(
      `tags[${i}] ${JSON.stringify(spec.name)} is not a tag MedFusion reads (identifying tags such as PatientName or PatientID cannot be selected)`,
    );
  }
  const [tag, vr] = known;
  const valueIndex = withDefault(`tags[${i}].valueIndex`, spec.valueIndex, 0, nonNegativeInt);
  let categories: Map<string, number> | undefined;
  if (vr === 'CS') {
    const list =
      spec.categories === undefined
        ? spec.name === 'PatientSex'
          ? ['M', 'F', 'O']
          : undefined
        : spec.categories;
    if (!Array.isArray(list) || !list.every((c) => typeof c === 'string')) {
      throw new TypeError(
        `tags[${i}] ${spec.name} is a code string: give categories (an array of its values), got ${showValue(spec.categories)}`,
      );
    }
    categories = new Map(list.map((c, k) => [c.toUpperCase(), k]));
  } else if (spec.categories !== undefined) {
    throw new TypeError(
      `tags[${i}] ${spec.name} is numeric: categories apply only to code strings`,
    );
  }
  return {
    label: valueIndex > 0 ? `${spec.name}[${valueIndex}]` : spec.name,
    name: spec.name,
    tag,
    vr,
    required: withDefault(`tags[${i}].required`, spec.required, false, bool),
    valueIndex,
    categories,
  };
}

/** Parse a decimal/integer string value to a number, undefined when it is not one. */
export function numberValue(raw: string | number | undefined, vr: TagVr): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (vr === 'AS') return ageInYears(raw);
  const t = raw.trim();
  if (t === '') return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : undefined;
}
