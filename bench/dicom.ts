// `pnpm bench dicom [--scale 1] [--size 512] [--rounds 7] [--window-ms 1000] [--in-flight 4]
//   [--warmup 3] [--syntax rle,j2k] [--epoch 0] [--cpu] [--breakdown 100]`
// In Chromium (Playwright, Debian's chromium): decode throughput per transfer syntax at
// size x size 16-bit (8-bit for JPEG Baseline), in the page's thread vs a pool of 2 workers;
// then an epoch from a throwaway Orthanc (DICOMweb) vs the same epoch from the disk tier.
// Each round measures both paths for --window-ms each (in-thread one frame after another; the
// workers with --in-flight calls in flight per worker), paired: the round's ratio is
// workers / in-thread, reported as the median and range over --rounds rounds.
// --syntax keeps only the named decode rows; --epoch 0 skips the Orthanc/disk epoch rows;
// --cpu adds the CPU ms per frame of the page's thread, the workers and the rest of Chromium
// (Linux /proc); --breakdown N adds a sweep of calls in flight (1, 2, 4, 8) of N frames each.
// Needs DCMTK + GDCM (fixtures) and Orthanc (epoch rows; skipped without it).
// Prints a table, then one JSON line as the last line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { ensureOrthanc, startOrthanc } from '../scripts/orthanc.mjs';
import { CT_12_BIT, type FixtureImage } from '../tests/dicom/fixtureImages.js';
import { startRangeServer } from '../tests/fixtures-shards/rangeServer.js';
import { startCorsProxy } from '../tests/setup/corsProxy.js';
import {
  buildDicomFixtures,
  ensureDicomTools,
  writeExplicit,
} from '../tests/setup/dicomFixtures.js';
import { arg, intArg, numArg } from './_args.js';
import { chromiumLaunchOptions } from './_chromium.js';
import { cpuTimes } from './_cpu.js';
import { callBenchPage, openBenchPage, previewBenchPage } from './_page.js';
import type { DicomBenchConfig, DicomRowResult } from './dicom/main.js';

const SCALE = numArg('scale', 1);
const SIZE = Number(arg('size') ?? 512);
const ROUNDS = intArg('rounds', 7);
// ~1 s windows: long enough that one scheduling hiccup does not decide a measurement, short enough
// that the paired in-thread and workers windows of a round see the same machine load
const WINDOW_MS = intArg('window-ms', 1000);
// 4 calls in flight per worker: each worker has the next frame queued while the page takes the last
const IN_FLIGHT = intArg('in-flight', 4);
const CPU = process.argv.includes('--cpu');
const BREAKDOWN = Number(arg('breakdown') ?? 0) || 0;
const INSTANCES = Math.max(4, Math.round(64 * SCALE));
const WARMUP = Math.max(1, Number(arg('warmup') ?? 3));
const ONLY = arg('syntax')?.split(',');
const EPOCH = arg('epoch') !== '0';

const CT: FixtureImage = {
  ...CT_12_BIT,
  name: 'ct',
  rows: SIZE,
  columns: SIZE,
  // a smooth body-like disc with noise: compresses like CT, not like a test pattern
  value: (_f, y, x) => {
    const r = Math.hypot(x - SIZE / 2, y - SIZE / 2) / (SIZE / 2);
    const noise = ((x * 7919 + y * 104729) % 17) - 8;
    return Math.max(
      0,
      Math.min(
        4095,
        Math.round(r < 0.9 ? 1064 + 200 * Math.cos(x / 13) * Math.sin(y / 17) + noise : 24),
      ),
    );
  },
};
const GRAY: FixtureImage = {
  ...CT,
  name: 'gray',
  bitsAllocated: 8,
  bitsStored: 8,
  rescaleIntercept: 0,
  value: (f, y, x, c) => CT.value(f, y, x, c) >> 4,
};

const ALL_VARIANTS = [
  ['ct', 'explicit', '1.2.840.10008.1.2.1', 0],
  ['ct', 'deflated', '1.2.840.10008.1.2.1.99', 0],
  ['ct', 'rle', '1.2.840.10008.1.2.5', 0],
  ['ct', 'jpeg-lossless-sv1', '1.2.840.10008.1.2.4.70', 0],
  ['ct', 'jpegls', '1.2.840.10008.1.2.4.80', 0],
  ['ct', 'j2k', '1.2.840.10008.1.2.4.90', 0],
  ['gray', 'jpeg-baseline', '1.2.840.10008.1.2.4.50', 8],
] as const;
const VARIANTS = ALL_VARIANTS.filter(([, label]) => !ONLY || ONLY.includes(label));

async function main(): Promise<void> {
  if (!ensureDicomTools())
    throw new Error('the dicom bench needs DCMTK and GDCM (apt-get install dcmtk libgdcm-tools)');
  const tmp = mkdtempSync(join(tmpdir(), 'medfusion-bench-dicom-'));
  const www = join(tmp, 'www');
  const files = buildDicomFixtures(www, [CT, GRAY], VARIANTS);
  const data = await startRangeServer({ root: www });
  const stops: (() => Promise<void>)[] = [() => data.close()];
  let dicomWeb: DicomBenchConfig['dicomWeb'] = null;
  if (EPOCH && ensureOrthanc()) {
    const orthanc = await startOrthanc();
    stops.unshift(() => orthanc.stop());
    const study = files[0]?.study as string;
    for (let i = 0; i < INSTANCES; i++) await orthanc.upload(writeExplicit(CT, study));
    const proxy = await startCorsProxy(orthanc.url);
    stops.unshift(() => proxy.close());
    dicomWeb = { root: `${proxy.url}/dicom-web`, study };
  } else if (EPOCH) {
    console.error(
      'Orthanc is not installed: the epoch rows are skipped (apt-get install orthanc orthanc-dicomweb)',
    );
  }
  const server = await previewBenchPage('dicom', join(tmp, 'page'));
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const page = await openBenchPage(browser, server.url, 'runBench', (msg) => {
      if (msg.type() === 'log') console.error(`  ${msg.text()}`);
    });
    if (CPU) await page.exposeFunction('benchCpuMark', () => cpuTimes());
    const cfg: DicomBenchConfig = {
      files: files.map((f) => ({
        syntax: f.file.replace(/^(ct|gray)-|\.dcm$/g, ''),
        url: `${data.url}/plain/${f.file}`,
      })),
      windowMs: WINDOW_MS,
      inFlight: IN_FLIGHT,
      rounds: ROUNDS,
      warmup: WARMUP,
      breakdownFrames: BREAKDOWN,
      cpu: CPU,
      dicomWeb,
    };
    console.error(
      `dicom bench (Chromium): ${SIZE}x${SIZE}, ${ROUNDS} rounds of a ${WINDOW_MS} ms window per path (median, spread), ` +
        `${IN_FLIGHT} calls in flight per worker, ${WARMUP} warm-up frames per thread, epoch of ${INSTANCES} instances`,
    );
    const rows = await callBenchPage<DicomBenchConfig, DicomRowResult[]>(page, 'runBench', cfg);
    report(rows);
  } finally {
    await browser.close();
    await server.close();
    for (const stop of stops) await stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;

function report(rows: DicomRowResult[]): void {
  const out = rows.map((r) =>
    r.section === 'decode'
      ? {
          section: r.section,
          syntax: r.syntax,
          path: r.path,
          framesPerSec: r1(r.framesPerSec),
          spread: r1(r.spread),
          decodeMs: r2(r.decodeMs),
          ...(r.busy === undefined ? {} : { busy: r2(r.busy), perWorker: r.perWorker }),
          ...(r.ratio === undefined ? {} : { ratio: r2(r.ratio) }),
          ...(r.ratioRange === undefined ? {} : { ratioRange: r.ratioRange.map(r2) }),
          ...(r.cpuMsPerFrame === undefined
            ? {}
            : {
                cpuMsPerFrame: Object.fromEntries(
                  Object.entries(r.cpuMsPerFrame).map(([k, v]) => [k, r2(v)]),
                ),
              }),
        }
      : {
          section: r.section,
          source: r.source,
          samplesPerSec: r1(r.samplesPerSec),
          spread: r1(r.spread),
        },
  );
  const cpuCols = CPU ? ' CPU ms/frame page + workers + other |' : '';
  console.log(
    `| section | syntax / source | path | per second | spread | ratio (range) | decode ms/frame | workers busy | frames per worker |${cpuCols}`,
  );
  console.log(`|---|---|---|---:|---:|---:|---:|---:|---|${CPU ? '---|' : ''}`);
  for (const r of out) {
    if (r.section === 'decode') {
      const ratio =
        'ratio' in r && r.ratio !== undefined
          ? `${r.ratio.toFixed(2)} (${r.ratioRange?.map((x) => x.toFixed(2)).join('–')})`
          : '';
      const cpu =
        'cpuMsPerFrame' in r && r.cpuMsPerFrame
          ? ` ${['page', 'workers', 'other'].map((k) => r.cpuMsPerFrame?.[k]?.toFixed(2)).join(' + ')} |`
          : CPU
            ? ' |'
            : '';
      console.log(
        `| decode | ${r.syntax} | ${r.path} | ${r.framesPerSec} frames | ${r.spread} | ${ratio} | ` +
          `${r.decodeMs} | ${'busy' in r ? r.busy : ''} | ${'perWorker' in r ? r.perWorker?.join(' + ') : ''} |${cpu}`,
      );
    } else if ('source' in r) {
      console.log(
        `| epoch | ${r.source} | | ${r.samplesPerSec} samples | ${r.spread} | | | | |${CPU ? ' |' : ''}`,
      );
    }
  }
  console.log(JSON.stringify({ bench: 'dicom', rows: out }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
