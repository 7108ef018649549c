import type { TagReader, TagVr } from '../dicom/dicomTags.js';
import { tagOf } from '../dicom/dicomTags.js';
import { numberValue } from '../dicom/tagFields.js';

/** One attribute of the DICOM JSON model (PS3.18 F.2). */
export interface DicomJsonAttribute {
  vr?: string;
  Value?: unknown[];
}

/** A DICOM JSON object: attributes by 8-hex-digit tag. */
export type DicomJson = Record<string, DicomJsonAttribute>;

/** A {@link TagReader} over a DICOM JSON object (a QIDO answer or WADO-RS metadata). */
export function jsonReader(json: DicomJson): TagReader {
  const value = (tag: string, i: number): unknown => json[tag.toUpperCase()]?.Value?.[i];
  return {
    has: (tag) => (json[tag.toUpperCase()]?.Value?.length ?? 0) > 0,
    string: (tag, i = 0) => {
      const v = value(tag, i);
      return typeof v === 'string'
        ? v.trim() || undefined
        : typeof v === 'number'
          ? String(v)
          : undefined;
    },
    number: (tag: string, vr: TagVr, i = 0) => {
      const v = value(tag, i);
      return typeof v === 'number' || typeof v === 'string' ? numberValue(v, vr) : undefined;
    },
  };
}

/**
 * Only the attributes MedFusion reads (the image description and the
 * selectable clinical tags, never identifying ones), for the instance list
 * kept in the store: PatientName, PatientID and the like are dropped here.
 */
export function keepReadableTags(json: DicomJson, names: readonly string[]): DicomJson {
  const out: DicomJson = {};
  for (const name of names) {
    const tag = tagOf(name)?.[0].toUpperCase();
    const attr = tag === undefined ? undefined : json[tag];
    if (tag !== undefined && attr?.Value) out[tag] = { Value: attr.Value };
  }
  return out;
}

/** The first string value of an attribute (UIDs). */
export function uidOf(json: DicomJson, tag: string): string | undefined {
  const v = json[tag]?.Value?.[0];
  return typeof v === 'string' ? v : undefined;
}
