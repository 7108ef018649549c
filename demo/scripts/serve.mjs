#!/usr/bin/env node
// What `npm run demo` runs (through scripts/run.mjs): generate the synthetic
// data set (first run only), build the app, and serve the build together with
// the data (vite preview + the demo's data plugin). The built app registers a
// service worker and caches its whole shell, so after one online epoch with
// "both + disk" the page reloads and trains with the network off.
//
//   node demo/scripts/serve.mjs [--port 5173] [--host 127.0.0.1] [--dev]
//
// --dev runs the Vite dev server instead (hot reload while working on the demo;
// no service worker, so no offline). MEDFUSION_DEMO_DATA=/dir serves a data
// folder you generated yourself (nothing is generated then).
//
// When Orthanc and its DICOMweb plugin are installed, a throwaway Orthanc is
// started meanwhile with the DICOM files uploaded (demo/scripts/dicomweb.mjs):
// the page's "DICOMweb (Orthanc)" source reads it through this server; it is
// stopped with the server (Ctrl+C, SIGTERM).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createServer, preview } from 'vite';
import { dicomWebPlugin, startDemoOrthanc } from './dicomweb.mjs';
import { DEFAULT_DATA_DIR, generate } from './generate-data.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const configFile = join(here, '..', 'vite.config.ts');

function parseArgs(argv) {
  const opts = { port: 5173, host: '127.0.0.1', dev: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--dev') opts.dev = true;
    else if (arg === '--port') opts.port = Number(argv[++i]);
    else if (arg === '--host') opts.host = String(argv[++i]);
    else if (arg === '--help') {
      console.log('usage: npm run demo [-- --port N] [--host H] [--dev]');
      process.exit(0);
    } else throw new RangeError(`unknown argument ${JSON.stringify(arg)} (try --help)`);
  }
  if (!(Number.isInteger(opts.port) && opts.port >= 0 && opts.port < 65536)) {
    throw new RangeError(`--port must be an integer in [0, 65535], got ${opts.port}`);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const dataDir = process.env.MEDFUSION_DEMO_DATA ?? DEFAULT_DATA_DIR;
if (process.env.MEDFUSION_DEMO_DATA) {
  console.log(`[demo] serving the data in ${process.env.MEDFUSION_DEMO_DATA}`);
} else {
  const t0 = Date.now();
  const r = await generate();
  if (!r.skipped)
    console.log(`[demo] wrote ${r.count} samples to ${r.out} in ${Date.now() - t0} ms`);
}

// Orthanc starts and takes the uploads while the app builds; it stops with this process.
let orthancStarted = null;
const dicomWeb = startDemoOrthanc(dataDir).then((started) => {
  orthancStarted = started.orthanc;
  return started;
});
const stopOrthanc = async () => {
  const { orthanc } = await dicomWeb;
  await orthanc?.stop();
  process.exit(0);
};
process.once('SIGINT', stopOrthanc);
process.once('SIGTERM', stopOrthanc);
process.once('exit', () => orthancStarted?.kill()); // an exit without a signal: synchronous

const server = { host: opts.host, port: opts.port, strictPort: true, open: false };
let url;
if (opts.dev) {
  const dev = await createServer({ configFile, server, plugins: [dicomWebPlugin(await dicomWeb)] });
  await dev.listen();
  url = dev.resolvedUrls?.local[0];
  console.log('[demo] dev server: hot reload, no service worker (offline needs `npm run demo`)');
} else {
  const t0 = Date.now();
  console.log('[demo] building the app…');
  process.env.NODE_ENV = 'production'; // a test runner's NODE_ENV=test must not leak into the build
  await build({ configFile, mode: 'production', logLevel: 'warn' });
  console.log(`[demo] built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const served = await preview({
    configFile,
    preview: server,
    plugins: [dicomWebPlugin(await dicomWeb)],
  });
  url = served.resolvedUrls?.local[0];
}
const { status } = await dicomWeb;
console.log(
  status.available
    ? `[demo] DICOMweb: Orthanc with ${status.instances} instances, at ${url}orthanc/dicom-web/`
    : `[demo] DICOMweb source off: ${status.reason}`,
);
console.log(`[demo] open ${url}`);
