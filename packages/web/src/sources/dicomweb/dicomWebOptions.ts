import type { PersistentStore } from '@medfusion/core';
import type { HttpOptions } from '../../remote/RangeReader.js';
import type { DicomDecodeOptions, DicomSample } from '../dicom/dicomOptions.js';

/** One instance (or one frame of it) the query resolved to. */
export interface DicomWebInstance {
  /** Study Instance UID. */
  study: string;
  /** Series Instance UID. */
  series: string;
  /** SOP Instance UID. */
  instance: string;
  /** Frame number (1-based, as in WADO-RS), or 0 for every frame (`multiFrame: 'volume'`). */
  frame: number;
}

/** Options of `DicomWebSource.open`. */
export interface DicomWebSourceOptions<T = DicomSample> extends HttpOptions, DicomDecodeOptions {
  /**
   * The DICOMweb root (QIDO-RS and WADO-RS live under it). Credentials go
   * through `headers` (e.g. `{ Authorization: 'Bearer …' }`) or your own `fetch`.
   * @example 'https://pacs.hospital.example/dicom-web'
   */
  root: string | URL;
  /** Study Instance UID to read (with `series`, one series of it). */
  study?: string;
  /** Series Instance UID to read (needs `study`). */
  series?: string;
  /**
   * Further QIDO-RS matching keys for the instance search, e.g. `{ Modality: 'CT' }`.
   * @default {}
   */
  query?: Readonly<Record<string, string>>;
  /**
   * Keeps the resolved instance list (and the image description of each, never
   * identifying attributes) under `<fingerprint>/dicomweb-instances`, so the
   * next `open` sends no query. Use the store of the disk tier.
   */
  store?: PersistentStore;
  /**
   * Identifies the data set: key prefix of the instance list in `store` and,
   * through the source's `fingerprint`, of the disk tier.
   * @default derived from root, study, series, query and the decode options
   */
  fingerprint?: string;
  /** The label of an instance (or frame); NaN when not given. */
  label?: (instance: DicomWebInstance) => number;
  /** Maps a sample to what `get` returns. */
  transform?: (sample: DicomSample, index: number) => T | Promise<T>;
  /** Aborts `open`. */
  signal?: AbortSignal;
}

/** Counters of a `DicomWebSource`. */
export interface DicomWebStats {
  /** QIDO-RS and metadata requests sent by `open` (0 when the list came from the store). */
  queryRequests: number;
  /** WADO-RS frame requests sent by `get`. */
  frameRequests: number;
  /** Frame requests repeated asking for Explicit VR Little Endian after the server refused `*` (an error status other than 408, 429, 502, 503, 504). */
  transcodeFallbacks: number;
}
