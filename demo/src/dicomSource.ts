// The "DICOM" source: the same synthetic scans, written by the data generator as DICOM
// files (`/data/dicom/*.dcm`, Explicit VR Little Endian) with a CSV manifest, read by
// DicomSource in the training worker. Pixels are windowed to [0, 1] like the PNG sources;
// the tabular columns are standardised with the shards manifest's statistics.
import type { CsvImageSample } from '@medfusion/web';
import { checksum } from '@medfusion/web';
import { DicomSource } from '@medfusion/web/dicom';
import { SHARDS_MANIFEST_PATH } from './shardSource.js';

/** Where the data server publishes the DICOM manifest. */
export const DICOM_MANIFEST_PATH = '/data/dicom/manifest.csv';

/** The demo's scans are 8-bit: this window maps 0..255 to [0, 1], as the PNG decoder does. */
export const DICOM_WINDOW = { center: 128, width: 256 };

/** An opened DICOM source and what the page needs to know about it. */
export interface OpenedDicomSource {
  /** Samples as `{ image, tabular, label }`, shaped like the CSV source's. */
  dataset: DicomSource<CsvImageSample>;
  /** Tabular feature names, in `tabular` order. */
  columns: readonly string[];
  /** Checksum of the manifest (keys the disk tier to this version of the files). */
  version: string;
}

/** The DICOM manifest's text, the tabular columns and their statistics (from the shards manifest). */
export interface DicomManifest {
  /** CSV text (`url,<columns…>,label`). */
  text: string;
  /** Tabular feature names. */
  columns: string[];
  /** Mean of each column. */
  mean: number[];
  /** Standard deviation of each column. */
  std: number[];
  /** Checksum of the manifest (keys the disk tier to this version of the files). */
  version: string;
}

/** Fetch `/data/dicom/manifest.csv` and the tabular statistics the other sources standardise with. */
export async function fetchDicomManifest(origin: string): Promise<DicomManifest> {
  const [text, stats] = await Promise.all([
    fetch(new URL(DICOM_MANIFEST_PATH, origin), { cache: 'no-store' }).then((r) => r.text()),
    fetch(new URL(SHARDS_MANIFEST_PATH, origin), { cache: 'no-store' }).then(
      (r) => r.json() as Promise<{ tabular: { columns: string[]; mean: number[]; std: number[] } }>,
    ),
  ]);
  const version = checksum(new TextEncoder().encode(text)).toString(16);
  return { text, ...stats.tabular, version };
}

/** Open `/data/dicom/manifest.csv` as a {@link DicomSource} yielding the CSV source's sample shape. */
export async function openDicomSource(origin: string): Promise<OpenedDicomSource> {
  const manifestUrl = new URL(DICOM_MANIFEST_PATH, origin).href;
  const { columns, mean, std, version } = await fetchDicomManifest(origin);
  const dataset = await DicomSource.open<CsvImageSample>({
    manifestUrl,
    tabularColumns: columns,
    // 8-bit values 0..255 to [0, 1], as the PNG decoder does
    window: DICOM_WINDOW,
    transform: ({ image, tabular, label }) => {
      for (let c = 0; c < columns.length; c++) {
        tabular[c] = ((tabular[c] as number) - (mean[c] as number)) / (std[c] as number);
      }
      return { image: image.data, tabular, label };
    },
  });
  return { dataset, columns, version };
}
