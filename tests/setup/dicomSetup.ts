/**
 * Vitest global setup (Node) of the `dicom` project: builds the DICOM fixtures
 * with dcmjs + DCMTK + GDCM into a temp folder, serves them with the range
 * server (for DicomSource), starts a throwaway Orthanc with DICOMweb, uploads
 * every fixture, and puts a CORS proxy in front of it (for DicomWebSource), and
 * fault proxies in front of both (tests/setup/faultProxy.ts). Orthanc runs on its
 * default settings (it gzips its answers), as a PACS a user points at would.
 * Everything is installed with apt-get when root and missing;
 * MEDFUSION_NO_ORTHANC=1 skips the Orthanc part (its tests are skipped).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureOrthanc, startOrthanc } from '../../scripts/orthanc.mjs';
import type { FixtureFile } from '../dicom/fixtureImages.js';
import { startRangeServer } from '../fixtures-shards/rangeServer.js';
import { startCorsProxy } from './corsProxy.js';
import { buildDicomFixtures, ensureDicomTools, writeCdExport } from './dicomFixtures.js';
import { startFaultProxy } from './faultProxy.js';

/** What the dicom tests get with `inject('dicom')`. */
export interface DicomFixtures {
  /** The fixture files. */
  files: FixtureFile[];
  /** Base URL of the files (`<base><file>`). */
  filesUrl: string;
  /** DICOMweb root through the CORS proxy, or null without Orthanc. */
  dicomWeb: string | null;
  /** The proxy's base URL (`/__requests` counts requests), or null. */
  proxy: string | null;
  /** Fault proxies (tests/setup/faultProxy.ts): in front of Orthanc (null without it) and of the files. */
  faults: { orthanc: string | null; files: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** DICOM fixtures and servers (tests/setup/dicomSetup.ts). */
    dicom: DicomFixtures;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!ensureDicomTools()) {
    throw new Error(
      'DCMTK and GDCM are needed for the DICOM fixtures: apt-get install dcmtk libgdcm-tools (run as root to install them automatically)',
    );
  }
  const tmp = mkdtempSync(join(tmpdir(), 'medfusion-dicom-'));
  const dir = join(tmp, 'www');
  const files = buildDicomFixtures(dir);
  writeCdExport(dir); // served, not uploaded: a DICOMDIR is not an image
  // A manifest over every file: label = row % 2, score = row * 1.5 (see dicom-source-manifest.test.ts).
  const rows = files.map((f, i) => `${f.file},${i % 2},${i * 1.5}`);
  writeFileSync(join(dir, 'manifest.csv'), `url,label,score\n${rows.join('\n')}\n`);
  const server = await startRangeServer({ root: dir });
  const stops: (() => Promise<void>)[] = [() => server.close()];
  const fileFaults = await startFaultProxy(server.url);
  stops.unshift(() => fileFaults.close());
  let dicomWeb: string | null = null;
  let proxyUrl: string | null = null;
  let orthancFaults: string | null = null;
  if (!process.env.MEDFUSION_NO_ORTHANC) {
    if (!ensureOrthanc()) {
      throw new Error(
        'Orthanc is needed for the DICOMweb tests: apt-get install orthanc orthanc-dicomweb (or MEDFUSION_NO_ORTHANC=1 to skip them)',
      );
    }
    const orthanc = await startOrthanc();
    stops.unshift(() => orthanc.stop());
    for (const f of files) await orthanc.upload(readFileSync(join(dir, f.file)));
    const proxy = await startCorsProxy(orthanc.url);
    stops.unshift(() => proxy.close());
    dicomWeb = `${proxy.url}/dicom-web`;
    proxyUrl = proxy.url;
    const faults = await startFaultProxy(orthanc.url);
    stops.unshift(() => faults.close());
    orthancFaults = faults.url;
  }
  project.provide('dicom', {
    files,
    filesUrl: `${server.url}/plain/`,
    dicomWeb,
    proxy: proxyUrl,
    faults: { orthanc: orthancFaults, files: fileFaults.url },
  });
  return async () => {
    for (const stop of stops) await stop();
    rmSync(tmp, { recursive: true, force: true });
  };
}
