// The demo's DICOMweb server: when Orthanc and its DICOMweb plugin are
// installed, a throwaway Orthanc (scripts/orthanc.mjs, the one the dicom tests
// use) on 127.0.0.1 with the generated DICOM files uploaded once; the demo
// server reaches it under its own origin (no CORS):
//
//   GET /orthanc/status.json   { available: true, instances } or { available: false, reason }
//   GET /orthanc/dicom-web/…   forwarded to Orthanc's /dicom-web/… (QIDO-RS, WADO-RS)
//
// MEDFUSION_NO_ORTHANC=1 leaves Orthanc out, as the tests' setup does.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forwardRequest, orthancInstalled, startOrthanc } from '../../scripts/orthanc.mjs';

/** Where the page finds out whether DICOMweb is offered. */
export const STATUS_PATH = '/orthanc/status.json';
/** Prefix of the forwarded DICOMweb requests. */
export const DICOMWEB_PREFIX = '/orthanc/dicom-web/';
/** Files uploaded at once. */
const UPLOADS_IN_FLIGHT = 4;

/**
 * Start Orthanc and upload every `dicom/*.dcm` of `dataDir`, or say why not.
 * Never throws: a failure becomes the reason the page shows.
 * @returns `{ status, orthanc }` (`orthanc` is null when not started)
 */
export async function startDemoOrthanc(dataDir) {
  if (process.env.MEDFUSION_NO_ORTHANC) {
    return {
      status: { available: false, reason: 'turned off (MEDFUSION_NO_ORTHANC)' },
      orthanc: null,
    };
  }
  if (!orthancInstalled()) {
    return {
      status: {
        available: false,
        reason: 'Orthanc is not installed (apt-get install orthanc orthanc-dicomweb)',
      },
      orthanc: null,
    };
  }
  let orthanc = null;
  try {
    orthanc = await startOrthanc();
    const dir = join(dataDir, 'dicom');
    const files = readdirSync(dir).filter((f) => f.endsWith('.dcm'));
    let next = 0;
    const uploader = async () => {
      while (next < files.length) {
        const file = files[next++];
        await orthanc.upload(readFileSync(join(dir, file)));
      }
    };
    await Promise.all(Array.from({ length: UPLOADS_IN_FLIGHT }, uploader));
    return { status: { available: true, instances: files.length }, orthanc };
  } catch (err) {
    await orthanc?.stop();
    return {
      status: { available: false, reason: `Orthanc did not start: ${err.message ?? err}` },
      orthanc: null,
    };
  }
}

/**
 * A Vite plugin (dev and preview) answering `/orthanc/status.json` with
 * `status` and forwarding `/orthanc/dicom-web/…` to `orthanc`.
 */
export function dicomWebPlugin({ status, orthanc }) {
  const handle = (req, res, next) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === STATUS_PATH) {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'no-store');
      res.end(JSON.stringify(status));
    } else if (path.startsWith(DICOMWEB_PREFIX) && orthanc) {
      forwardRequest(req, res, orthanc.url, req.url.slice('/orthanc'.length));
    } else if (path.startsWith(DICOMWEB_PREFIX)) {
      res.statusCode = 503;
      res.end(`DICOMweb is not available: ${status.reason}`);
    } else next();
  };
  return {
    name: 'medfusion-demo-dicomweb',
    configureServer(server) {
      server.middlewares.use(handle);
    },
    configurePreviewServer(server) {
      server.middlewares.use(handle);
    },
  };
}
