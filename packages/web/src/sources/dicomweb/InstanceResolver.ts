import { showValue } from '@medfusion/core/internal';
import { httpOptionsOf } from '../../remote/RangeReader.js';
import { SourceFormatError } from '../../remote/RemoteError.js';
import { DicomDecoder } from '../dicom/DicomDecoder.js';
import { fetchObject } from '../dicom/fetchObject.js';
import { type DicomJson, jsonReader, keepReadableTags, uidOf } from './dicomJson.js';
import type { DicomWebSourceOptions } from './dicomWebOptions.js';

/** The attributes kept per instance: image description + selectable tags (none identifying). */
const KEPT = [
  'SamplesPerPixel',
  'PhotometricInterpretation',
  'PlanarConfiguration',
  'NumberOfFrames',
  'Rows',
  'Columns',
  'BitsAllocated',
  'BitsStored',
  'PixelRepresentation',
  'WindowCenter',
  'WindowWidth',
  'RescaleIntercept',
  'RescaleSlope',
];
const PAGE = 1000;
const UID = /^[0-9]+(\.[0-9]+)*$/;

/** One resolved instance, as kept in the store. */
export interface InstanceEntry {
  study: string;
  series: string;
  instance: string;
  frames: number;
  /** The kept attributes (DICOM JSON). */
  tags: DicomJson;
}

/** `value` when it is a DICOM UID; a TypeError naming `name` otherwise. */
export function checkUid(name: string, value: unknown): string {
  if (typeof value !== 'string' || !UID.test(value)) {
    throw new TypeError(`${name} must be a DICOM UID (digits and dots), got ${showValue(value)}`);
  }
  return value;
}

/** Resolves a query to entries with QIDO-RS (instances) and WADO-RS (series metadata). */
export class InstanceResolver {
  requests = 0;
  private readonly root: string;
  private readonly options: DicomWebSourceOptions<unknown>;

  constructor(root: string, options: DicomWebSourceOptions<unknown>) {
    this.root = root;
    this.options = options as DicomWebSourceOptions<unknown>;
  }

  async resolve(
    study: string | undefined,
    series: string | undefined,
    query: Readonly<Record<string, string>>,
  ): Promise<InstanceEntry[]> {
    const path =
      study === undefined
        ? ''
        : `/studies/${study}${series === undefined ? '' : `/series/${series}`}`;
    const found: { study: string; series: string; instance: string }[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const params = new URLSearchParams({ ...query, limit: String(PAGE), offset: String(offset) });
      const page = await this.json(`${this.root}${path}/instances?${params}`);
      for (const item of page) {
        found.push({
          study: checkUid('StudyInstanceUID in a QIDO answer', uidOf(item, '0020000D') ?? study),
          series: checkUid('SeriesInstanceUID in a QIDO answer', uidOf(item, '0020000E') ?? series),
          instance: checkUid('SOPInstanceUID in a QIDO answer', uidOf(item, '00080018')),
        });
      }
      if (page.length < PAGE) break;
    }
    const wanted = new Set(found.map((f) => f.instance));
    const seriesList = [...new Map(found.map((f) => [f.series, f])).values()];
    const names = [
      ...KEPT,
      ...new DicomDecoder(this.options).tagNames.map((n) => n.replace(/\[\d+\]$/, '')),
    ];
    const entries: (InstanceEntry & { number: number })[] = [];
    for (const s of seriesList) {
      const metadata = await this.json(
        `${this.root}/studies/${s.study}/series/${s.series}/metadata`,
      );
      for (const m of metadata) {
        const instance = uidOf(m, '00080018');
        if (instance === undefined || !wanted.has(instance)) continue;
        const reader = jsonReader(m);
        entries.push({
          study: s.study,
          series: s.series,
          instance,
          frames: Math.max(1, reader.number('00280008', 'IS') ?? 1),
          tags: keepReadableTags(m, names),
          number: reader.number('00200013', 'IS') ?? 0,
        });
      }
    }
    entries.sort((a, b) =>
      a.series === b.series
        ? a.number - b.number || (a.instance < b.instance ? -1 : 1)
        : a.series < b.series
          ? -1
          : 1,
    );
    return entries.map(({ number: _n, ...e }) => e);
  }

  private async json(url: string): Promise<DicomJson[]> {
    this.requests++;
    const http = httpOptionsOf(this.options);
    const bytes = await fetchObject(
      url,
      { ...http, headers: { ...http.headers, Accept: 'application/dicom+json' } },
      this.options.signal,
    );
    const text = new TextDecoder().decode(bytes);
    if (text.trim() === '') return [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new SourceFormatError(`${url} did not answer DICOM JSON`, { cause: error });
    }
    if (!Array.isArray(value))
      throw new SourceFormatError(`${url} did not answer a DICOM JSON array`);
    return value as DicomJson[];
  }
}
