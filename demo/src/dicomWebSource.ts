// The "DICOMweb (Orthanc)" source: the same DICOM files, uploaded by the demo server to
// a throwaway Orthanc (demo/scripts/dicomweb.mjs) and read with DicomWebSource (QIDO-RS
// to list the instances, WADO-RS for the frames) through the demo server's origin, so no
// CORS is involved. Offered only when the server started Orthanc; otherwise the option
// is disabled and says why. Each instance's InstanceNumber is its manifest row + 1: the
// label and tabular values come from that row, standardised like the other sources.
import type { CsvImageSample } from '@medfusion/web';
import { DicomWebSource } from '@medfusion/web/dicom';
import { DICOM_WINDOW, fetchDicomManifest } from './dicomSource.js';

/** Where the demo server says whether DICOMweb is offered. */
export const DICOMWEB_STATUS_PATH = '/orthanc/status.json';
/** The DICOMweb root, forwarded by the demo server to Orthanc. */
export const DICOMWEB_ROOT = '/orthanc/dicom-web';

/** What the demo server says about its Orthanc. */
export type DicomWebStatus =
  | { available: true /** Instances uploaded. */; instances: number }
  | { available: false /** Why there is no DICOMweb server. */; reason: string };

/** An opened DICOMweb source and what the page needs to know about it. */
export interface OpenedDicomWebSource {
  /** Samples as `{ image, tabular, label }`, shaped like the CSV source's. */
  dataset: DicomWebSource<CsvImageSample>;
  /** Tabular feature names, in `tabular` order. */
  columns: readonly string[];
  /** Checksum of the DICOM manifest (keys the disk tier to this version of the files). */
  version: string;
}

/** Ask the demo server whether it runs Orthanc; a server that cannot be asked counts as a reason. */
export async function dicomWebStatus(origin: string): Promise<DicomWebStatus> {
  // Known offline: no doomed request (and its console error).
  if (!navigator.onLine) return { available: false, reason: 'the page is offline' };
  try {
    const res = await fetch(new URL(DICOMWEB_STATUS_PATH, origin), { cache: 'no-store' });
    if (!res.ok) return { available: false, reason: `the demo server answered HTTP ${res.status}` };
    return (await res.json()) as DicomWebStatus;
  } catch {
    return { available: false, reason: 'the demo server cannot be reached' };
  }
}

/** Enable `option` when the server runs Orthanc; else disable it and say why (label and tooltip). */
export async function offerDicomWeb(option: HTMLOptionElement, origin: string): Promise<void> {
  const status = await dicomWebStatus(origin);
  option.disabled = !status.available;
  option.dataset.available = String(status.available);
  if (!status.available) {
    option.textContent = `DICOMweb (Orthanc): off, ${status.reason}`;
    option.title = status.reason;
  }
}

/** Open the Orthanc behind the demo server as a {@link DicomWebSource} yielding the CSV source's sample shape. */
export async function openDicomWebSource(origin: string): Promise<OpenedDicomWebSource> {
  const status = await dicomWebStatus(origin);
  if (!status.available) throw new Error(`DICOMweb (Orthanc) is off: ${status.reason}`);
  const { text, columns, mean, std, version } = await fetchDicomManifest(origin);
  // Standardised features and the label of each manifest row.
  const rows = text.trim().split('\n').slice(1);
  const features = new Float32Array(rows.length * columns.length);
  const labels = new Float32Array(rows.length);
  rows.forEach((line, r) => {
    const cells = line.split(',').map(Number); // url, columns…, label
    for (let c = 0; c < columns.length; c++) {
      features[r * columns.length + c] =
        ((cells[c + 1] as number) - (mean[c] as number)) / (std[c] as number);
    }
    labels[r] = cells[columns.length + 1] as number;
  });
  const dataset = await DicomWebSource.open<CsvImageSample>({
    root: new URL(DICOMWEB_ROOT, origin).href,
    fingerprint: `medfusion-demo-dicomweb:${version}`,
    window: DICOM_WINDOW,
    tags: ['InstanceNumber'],
    transform: ({ image, tabular }) => {
      const row = (tabular[0] as number) - 1;
      if (!(row >= 0 && row < rows.length)) {
        throw new RangeError(`InstanceNumber ${row + 1} is not a manifest row (1..${rows.length})`);
      }
      const start = row * columns.length;
      return {
        image: image.data,
        tabular: features.slice(start, start + columns.length),
        label: labels[row] as number,
      };
    },
  });
  return { dataset, columns, version };
}
