// `pnpm bench feed [--quick] [--scale F] [--samples N] [--rounds N] [--tiers a,b] [--trace]
//                  [--dtype float32|uint8]`
//
// Data-only throughput of a 224² training feed in Chromium (#47): a DataLoader, batch 64,
// 224x224x3 uint8 -> float32 with ImageNet's mean/std (core's collate `toFloat32`), the consumer
// taking each batch as a training loop would (its float32 image copied into an ArrayBuffer of
// its own, what tf.tensor() or a GPU upload does), per tier, cold (a fresh pipeline's first
// epoch) and warm (its second), each beside its ceiling measured in the same page and round:
//   memory          fromArray of the images (a hot cache) | set() of the same bytes into one batch buffer
//   opfs            OpfsStore under createCachedDataset, the source offline (a second visit)
//                   | raw reads of the same bytes with a sync access handle in a worker
//   shards-decoded  `medfusion pack --decode --size 224x224 --channels 3` over HTTP from
//                   127.0.0.1 (WebDatasetSource, .npy parsed on the page) | plain range fetches of
//                   the same members, 16 in flight
//   shards-jpeg/png the JPEG/PNG files packed, decoded by the library's ImageDecoder in 2 workers
//                   to uint8 (toFloat32 normalises once, in collate) | the codec alone on the same
//                   images in 2 workers, by the library's platform path (WebCodecs' ImageDecoder
//                   + VideoFrame.copyTo where it exists, else createImageBitmap + getImageData)
//   dicom           512x512 CT slices (16 bits allocated, 12 stored, JPEG Lossless SV1 by DCMTK)
//                   packed as .dcm members, decoded by the library's DicomDecoder in 2 workers with
//                   a 40/400 window, resized to 224x224 (bilinear) and grey repeated to 3
//                   channels by the decoder's width/height/channels in the same pass
//                   | the library's JPEG Lossless codec alone on the same frames in 2 workers
// Per row: samples/s, MB/s (224x224x3 image bytes delivered at one byte a value, 150,528 a
// sample, whether the row's samples arrive as uint8 or as floats), ofCeiling (warm ÷
// ceiling), copies per sample (counted from the code path, see COPIES), JS heap bytes allocated
// per sample (the heap's rises between batches summed, Chromium's --enable-precise-memory-info;
// Chromium counts ArrayBuffer contents in it: a cold memory epoch shows the two pooled
// 38.5 MB batch buffers), CPU ms per sample by thread class (/proc), and for the shard tiers
// where a load's time went (waiting for bytes, transform), stall share (time
// in next() ÷ epoch). Tiers alternate in order every round (A B C, B C A, …) in one page; the
// figures are medians over rounds with [min–max]. A table, then one JSON line last.
// --trace: a Chrome trace (V8's sampler on) of each tier's warm epoch in round 1, printed as
// each thread's busiest functions (that round's figures then include the tracing's cost).
// --quick: 256 samples, 2 rounds (a smoke run); --scale F: F × 512 samples (default 512 samples, 3 rounds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { createServer, defaultClientConditions } from 'vite';
import { ensureDicomTools } from '../tests/setup/dicomFixtures.js';
import { arg, intArg, numArg } from './_args.js';
import { browserPidOf, chromiumLaunchOptions } from './_chromium.js';
import { median, round } from './_stats.js';
import { printTable } from './_table.js';
import { buildFeedData } from './feed/data.js';
import { buildDicomFeedData } from './feed/dicomData.js';
import { summarizeTrace, TRACE_CATEGORIES } from './feed/trace.js';
import {
  type Pass,
  SAMPLE_BYTES,
  TIERS,
  type Tier,
  type TierConfig,
  type TierResult,
} from './feed/types.js';
import { CpuMeter } from './pipeline/cpu.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..');
const QUICK = process.argv.includes('--quick');
const SAMPLES = intArg(
  'samples',
  Math.max(128, Math.round(((QUICK ? 256 : 512) * numArg('scale', 1)) / 64) * 64),
);
const ROUNDS = intArg('rounds', QUICK ? 2 : 3);
const TRACE = process.argv.includes('--trace');
// --dtype uint8: uint8 images are batched as uint8 (no toFloat32), the CPU side of the WebGPU
// recipe (docs/dataloader.md), where the GPU normalises; DICOM's floats are normalised as ever.
const askedDtype = arg('dtype') ?? 'float32';
if (askedDtype !== 'float32' && askedDtype !== 'uint8') {
  throw new RangeError(`--dtype must be float32 or uint8, got ${JSON.stringify(askedDtype)}`);
}
const DTYPE: TierConfig['dtype'] = askedDtype;
const askedTiers = arg('tiers');
const tiers = (askedTiers ?? TIERS.join(',')).split(',') as Tier[];
for (const t of tiers) if (!TIERS.includes(t)) throw new RangeError(`--tiers: unknown tier ${t}`);
// The dicom tier's slices are encoded by DCMTK: without it, a default run goes on without the tier.
if (tiers.includes('dicom') && !ensureDicomTools()) {
  const why = 'the dicom tier needs DCMTK (apt-get install dcmtk libgdcm-tools)';
  if (askedTiers) throw new Error(why);
  console.error(`${why}: skipped`);
  tiers.splice(tiers.indexOf('dicom'), 1);
}

/**
 * Copies of a sample's bytes the library makes between the medium and the batch buffer (the
 * consumer's own copy out of the batch is not counted), read off each tier's code path. A copy
 * is a pass that writes every byte of the sample into another buffer (set(), a read into a
 * buffer, structured clone, a conversion loop); views (subarray) and transfers are not copies.
 */
const COPIES: Record<Tier, { n: number; path: string }> = {
  memory: {
    n: 1,
    path: 'cached uint8 -> collate writes the batch (float32, or uint8 with --dtype uint8) into the pooled batch buffer',
  },
  opfs: {
    n: 2,
    path: "sync-handle read into a fresh buffer in the store's worker (1), moved to the page, the sample codec's image a view of it, collate (2)",
  },
  'shards-decoded': {
    n: 2,
    path: "the response's chunks straight into the sample's own buffer (1, RangeReader.readPieces, alone or in a merged read), members and .npy views of it, collate (2); only a shard's first read, whole to check its sha256, is one buffer its samples' members are copied out of (3)",
  },

  'shards-jpeg': {
    n: 5,
    path: "range response straight into the sample's own buffer (1), moved to the worker whole, WebCodecs' ImageDecoder copies the encoded bytes it is given (2), codec, VideoFrame.copyTo of the decoded frame (I420) into a pooled buffer (3), YCbCr -> RGB uint8 in one pass into the sample's own array (4, moved back), collate writes float32 (5). The canvas path made 6 here: Blob, bitmap drawn into the canvas, getImageData, float32",
  },
  'shards-png': {
    n: 5,
    path: 'as shards-jpeg, the frame (BGRX) copied out as it is (3), BGRX -> RGB uint8 (4) (at 224² the platform decodes PNGs; fast-png only up to 128²)',
  },
  dicom: {
    n: 3,
    path: "range response straight into the sample's own buffer (1), moved to the worker whole, frame a view of it, codec into its reused buffer, DicomDecoder's one pass: rescale + window of the two input rows each output row reads (into two reused rows, never a whole frame), bilinear to 224², grey written to 3 channels, into the sample's own array (float32, or uint8 with --dtype uint8: DicomDecoder's dtype) (2, moved back), collate (3). Before DicomDecoder's width/height/channels: 5 (window into a 512² array, resize, grey to 3 each a pass)",
  },
};

interface Row {
  tier: Tier;
  cold: Pass[];
  warm: Pass[];
  ceiling: Pass[];
  phases: NonNullable<TierResult['phases']>[];
}

const rate = (p: Pass) => p.samples / (p.ms / 1000);

async function main(): Promise<void> {
  const t0 = performance.now();
  const dataDir = join(tmpdir(), `medfusion-bench-feed-${SAMPLES}`);
  const shardTiers = tiers.some((t) => t.startsWith('shards-'));
  if (shardTiers) console.error(`shards of ${SAMPLES} images in ${dataDir} (made once, reused)`);
  const data = shardTiers ? await buildFeedData(dataDir, SAMPLES) : undefined;
  if (tiers.includes('dicom')) console.error(`CT slices of ${SAMPLES} samples in ${dataDir}/dicom`);
  const dicomMembers = tiers.includes('dicom') ? buildDicomFeedData(dataDir, SAMPLES) : [];
  const server = await createServer({
    configFile: false,
    root: join(here, 'feed'),
    publicDir: dataDir,
    logLevel: 'warn',
    resolve: { conditions: ['@medfusion/source', ...defaultClientConditions] },
    worker: { format: 'es' },
    optimizeDeps: { entries: ['index.html'], include: ['comlink', 'idb'] },
    cacheDir: join(repoRoot, 'node_modules/.vite-bench-feed'),
    server: { host: '127.0.0.1', port: 0, fs: { allow: [repoRoot] }, hmr: false, watch: null },
  });
  await server.listen();
  const address = server.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('no server address');
  const url = `http://127.0.0.1:${address.port}/`;
  // A persistent profile, as a user's browser has: in an off-the-record context (what
  // newPage() on a launched browser gives) OPFS lives in the browser process's memory and
  // every sync-handle read is a round trip there (the opfs row's ceiling was ~1,300/s there,
  // 30,000+ on a profile's disk).
  const profile = mkdtempSync(join(tmpdir(), 'medfusion-bench-feed-profile-'));
  const context = await chromium.launchPersistentContext(
    profile,
    chromiumLaunchOptions(['--enable-precise-memory-info']),
  );
  const browser = context.browser();
  if (!browser) throw new Error('no browser behind the persistent context');
  const cpu = new CpuMeter(browserPidOf(profile));
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    let node = process.cpuUsage();
    await page.exposeFunction('feedCpu', () => {
      const d = process.cpuUsage(node);
      node = process.cpuUsage();
      return { ...cpu.mark(), serverMs: (d.user + d.system) / 1000 };
    });
    const traces = new Map<Tier, string[]>();
    let traced: Tier | undefined;
    await page.exposeFunction('feedTrace', async (what: 'start' | 'stop') => {
      if (what === 'start') await browser.startTracing(page, { categories: TRACE_CATEGORIES });
      else if (traced) traces.set(traced, summarizeTrace((await browser.stopTracing()).toString()));
    });
    page.on('pageerror', (err) => console.error(`  page error: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') console.error(`  page: ${m.text()}`);
    });
    await page.goto(url);
    await page.waitForFunction(() => 'runTier' in window, undefined, { timeout: 180_000 });
    const rows = new Map<Tier, Row>(
      tiers.map((t) => [t, { tier: t, cold: [], warm: [], ceiling: [], phases: [] }]),
    );
    for (let r = 0; r < ROUNDS; r++) {
      const order = tiers.map((_, i) => tiers[(i + r) % tiers.length] as Tier);
      for (const tier of order) {
        const cfg: TierConfig = {
          tier,
          samples: SAMPLES,
          manifestUrl: `/${tier}/manifest.json`,
          trace: TRACE && r === 0,
          dtype: DTYPE,
          members:
            tier === 'dicom'
              ? dicomMembers
              : tier.startsWith('shards-') && data
                ? data.members[tier as keyof typeof data.members]
                : [],
        };
        traced = tier;
        const res = (await page.evaluate((c) => window.runTier(c), cfg)) as TierResult;
        const row = rows.get(tier) as Row;
        row.cold.push(res.cold);
        row.warm.push(res.warm);
        row.ceiling.push(res.ceiling);
        if (res.phases) row.phases.push(res.phases);
        console.error(
          `round ${r + 1}/${ROUNDS} ${tier}: cold ${rate(res.cold).toFixed(0)}, warm ${rate(res.warm).toFixed(0)}, ceiling ${rate(res.ceiling).toFixed(0)} samples/s`,
        );
      }
    }
    for (const [tier, lines] of traces) {
      console.log(`\n${tier}, warm epoch of round 1, self time per thread (Chrome trace):`);
      for (const l of lines) console.log(`  ${l}`);
    }
    report([...rows.values()], (performance.now() - t0) / 1000);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await server.close();
  }
}

const mid = (xs: number[]) => median(xs);
const spread = (xs: number[], d = 0) =>
  `${mid(xs).toFixed(d)} [${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}]`;

function report(rows: Row[], seconds: number): void {
  const lines: string[][] = [];
  const json: Record<string, unknown>[] = [];
  for (const row of rows) {
    const ceil = row.ceiling.map(rate);
    for (const phase of ['cold', 'warm'] as const) {
      const passes = row[phase];
      const sps = passes.map(rate);
      const mbs = sps.map((s) => (s * SAMPLE_BYTES) / 1e6);
      const of = passes.map((p, i) => rate(p) / (ceil[i] as number));
      const alloc = passes.map((p) => p.heapRiseBytes / p.samples);
      const stall = passes.map((p) => p.waitMs / p.ms);
      lines.push([
        row.tier,
        phase,
        spread(sps),
        spread(mbs),
        spread(ceil),
        spread(of, 2),
        String(COPIES[row.tier].n),
        spread(alloc),
        spread(stall, 2),
      ]);
      json.push({
        tier: row.tier,
        phase,
        samplesPerSec: round(mid(sps), 0),
        samplesPerSecRange: [round(Math.min(...sps), 0), round(Math.max(...sps), 0)],
        mbPerSec: round(mid(mbs), 1),
        ceilingSamplesPerSec: round(mid(ceil), 0),
        ofCeiling: round(mid(of), 3),
        ofCeilingRange: [round(Math.min(...of), 3), round(Math.max(...of), 3)],
        copiesPerSample: COPIES[row.tier].n,
        heapBytesPerSample: round(mid(alloc), 0),
        stallShare: round(mid(stall), 3),
        cpuMsPerSample: {
          page: round(mid(passes.map((p) => p.cpu.pageMs / p.samples)), 3),
          workers: round(mid(passes.map((p) => p.cpu.workersMs / p.samples)), 3),
          other: round(mid(passes.map((p) => p.cpu.otherMs / p.samples)), 3),
          server: round(mid(passes.map((p) => p.cpu.serverMs / p.samples)), 3),
        },
      });
    }
  }
  console.log(
    `\nfeed: ${SAMPLES} samples of 224x224x3 uint8 -> ${DTYPE === 'uint8' ? 'uint8 batches (no toFloat32; dicom: DicomDecoder dtype uint8)' : 'float32'}, batch 64, ${ROUNDS} rounds, medians [min–max]`,
  );
  printTable(
    [
      'tier',
      'epoch',
      'samples/s',
      'MB/s',
      'ceiling/s',
      'ofCeiling',
      'copies',
      'heapB/sample',
      'stall',
    ],
    lines,
  );
  console.log(
    '\nCPU ms per sample by thread (page / workers / other Chromium / HTTP server), warm epoch vs ceiling; shard loads:',
  );
  for (const row of rows) {
    const per = (ps: Pass[], k: keyof Pass['cpu']) =>
      mid(ps.map((p) => p.cpu[k] / p.samples)).toFixed(2);
    const phase = row.phases.length
      ? `; per load ${mid(row.phases.map((p) => p.sourceMsPerLoad)).toFixed(1)} ms bytes, ${mid(row.phases.map((p) => p.decodeMsPerLoad)).toFixed(1)} ms transform`
      : '';
    console.log(
      `  ${row.tier}: warm ${per(row.warm, 'pageMs')} / ${per(row.warm, 'workersMs')} / ${per(row.warm, 'otherMs')} / ${per(row.warm, 'serverMs')}, ceiling ${per(row.ceiling, 'pageMs')} / ${per(row.ceiling, 'workersMs')} / ${per(row.ceiling, 'otherMs')} / ${per(row.ceiling, 'serverMs')}${phase}`,
    );
  }
  console.log('\ncopies counted on each path (medium -> batch buffer):');
  for (const t of rows) console.log(`  ${t.tier}: ${COPIES[t.tier].n} = ${COPIES[t.tier].path}`);
  console.log(
    JSON.stringify({
      bench: 'feed',
      samples: SAMPLES,
      rounds: ROUNDS,
      dtype: DTYPE,
      seconds: round(seconds, 1),
      rows: json,
    }),
  );
}

await main();
