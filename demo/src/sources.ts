// Opens the demo's data sources (in the training worker): the CSV manifest +
// images, the WebDataset tar shards, the DICOM files or DICOMweb (Orthanc), each with the
// fingerprint that keys its samples on disk.
import { CsvImageDataset, checksum } from '@medfusion/web';
import { openDicomSource } from './dicomSource.js';
import { openDicomWebSource } from './dicomWebSource.js';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from './manifest.js';
import { openOwnData } from './ownDataSource.js';
import type { PipelineSource } from './pipeline.js';
import type { Source } from './settings.js';
import { openShardSource } from './shardSource.js';

/** What the page shows about an opened source (the header). */
export interface SourceInfo {
  /** Which source. */
  kind: Source;
  /** Samples in the data set. */
  length: number;
  /** What the header says about it besides the sample count. */
  detail: string;
}

/** The page-facing summary of an opened source. */
export function sourceInfo(src: PipelineSource): SourceInfo {
  return { kind: src.kind, length: src.dataset.length, detail: src.detail };
}

/** Open the source `kind` from `origin`; `online` false reads the manifests' offline copies. */
export function openSource(kind: Source, origin: string, online: boolean): Promise<PipelineSource> {
  return kind === 'own'
    ? openOwn()
    : kind === 'shards'
      ? openShards(origin, online)
      : kind === 'dicom'
        ? openDicom(origin)
        : kind === 'dicomweb'
          ? openDicomWeb(origin)
          : openCsv(origin, online);
}

async function openCsv(origin: string, online: boolean): Promise<PipelineSource> {
  const manifest = await fetchManifest(origin, online);
  const dataset = await CsvImageDataset.open({
    csvUrl: manifestBlobUrl(manifest.text),
    imageBaseUrl: new URL(IMAGES_PATH, origin).href,
    standardizeTabular: true,
  });
  // The disk tier keys samples by this: a regenerated data set never reads stale bytes.
  const version = checksum(new TextEncoder().encode(manifest.text)).toString(16);
  return {
    kind: 'csv',
    dataset,
    features: dataset.tabularColumns.length,
    fingerprint: { name: 'medfusion-demo-synthetic', version },
    detail: `${dataset.tabularColumns.length} tabular features (manifest from ${manifest.from})`,
  };
}

async function openShards(origin: string, online: boolean): Promise<PipelineSource> {
  const { dataset, columns, version, from } = await openShardSource(origin, online);
  return {
    kind: 'shards',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-shards', version },
    detail: `${columns.length} tabular features, ${dataset.shardSizes.length} tar shards (manifest from ${from})`,
  };
}

async function openDicom(origin: string): Promise<PipelineSource> {
  const { dataset, columns, version } = await openDicomSource(origin);
  return {
    kind: 'dicom',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-dicom', version },
    detail: `${columns.length} tabular features, DICOM files`,
  };
}

async function openDicomWeb(origin: string): Promise<PipelineSource> {
  const { dataset, columns, version } = await openDicomWebSource(origin);
  return {
    kind: 'dicomweb',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-dicomweb', version },
    detail: `${columns.length} tabular features, DICOMweb (Orthanc)`,
  };
}

async function openOwn(): Promise<PipelineSource> {
  const { dataset, columns, version } = await openOwnData();
  return {
    kind: 'own',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-own', version },
    detail: `your own data, ${dataset.shardSizes.length} tar shards in OPFS`,
  };
}
