import type { ImageKind } from './imageKind.js';

/** One sample to pack: an image file and what goes beside it. */
export interface SampleInput {
  /** Sample key in the shards (member names are `<key>.<ext>`). */
  key: string;
  /** Absolute path of the image file. */
  path: string;
  /** How errors name the sample: its relative path, or the CSV row and path. */
  source: string;
  /** Label text (`.cls` member), when the input has labels. */
  label?: string;
  /** Tabular fields and kept DICOM tags (`.json` member). */
  fields?: Record<string, number | string>;
  /** Split group: samples of one group land in one split (DICOM: the patient). */
  group?: string;
  /** Image kind, once scanned. */
  kind?: ImageKind;
  /** File size, once scanned. */
  size?: number;
  /** File sha256 (hex), once scanned. */
  sha256?: string;
  /** Image width from its header, once scanned (when the header gives it). */
  width?: number;
  /** Image height from its header, once scanned. */
  height?: number;
  /**
   * The file's bytes as scanned, when the pack's memory budget kept them: the
   * write copies them instead of reading the file again, then lets them go.
   */
  bytes?: Uint8Array;
}
