// `pnpm bench s3 [--samples 4000] [--shards 8] [--rounds 5] [--expires 20] [--concurrency 16]`
// One epoch of WebDataset shards in Chromium (Playwright, Debian's chromium) from an
// S3-compatible store on 127.0.0.1 (s3rver, as the S3 tests start it), over presigned URLs
// that a stand-in backend signs with the AWS SDK (`signUrl`; they expire every `--expires`
// seconds) vs plain HTTP to the same store. Modes alternate within rounds (A B, B A, …); the
// figure is the median ratio of samples/s, presigned over plain. Prints a table, then one
// JSON line as the last line.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { startS3 } from '../tests/setup/s3Server.js';
import { intArg } from './_args.js';
import { chromiumLaunchOptions } from './_chromium.js';
import { callBenchPage, openBenchPage, previewBenchPage } from './_page.js';
import { buildShardData } from './_shardData.js';
import { median, round } from './_stats.js';
import type { S3BenchConfig, S3EpochResult } from './s3/main.js';

const SAMPLES = intArg('samples', 4000);
const SHARDS = intArg('shards', 8);
const ROUNDS = Math.max(5, intArg('rounds', 5));
// At least 2 s: X-Amz-Date counts whole seconds, so a 1 s URL may arrive expired however fresh.
const EXPIRES = Math.max(2, intArg('expires', 20));
const CONCURRENCY = intArg('concurrency', 16);

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'medfusion-bench-s3-'));
  const { shardSizes } = buildShardData(tmp, SAMPLES, SHARDS);
  const objects = new Map<string, string>();
  for (const f of readdirSync(tmp)) {
    if (f === 'manifest.json' || f.endsWith('.tar') || f.endsWith('.idx.json')) {
      objects.set(f, join(tmp, f));
    }
  }
  const s3 = await startS3(objects, EXPIRES);
  const server = await previewBenchPage('s3', join(tmp, 'page'));
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const page = await openBenchPage(browser, server.url, 'runBench');
    const { endpoint, bucket, backend } = s3.servers;
    const cfg = (modes: S3BenchConfig['modes']): S3BenchConfig => ({
      manifestUrl: `${endpoint}/${bucket}/manifest.json`,
      backend,
      shardSizes,
      concurrency: CONCURRENCY,
      lookahead: intArg('lookahead', 256),
      modes,
    });
    console.error(
      `s3 bench (Chromium): ${SAMPLES} samples in ${shardSizes.length} GNU tar shards on s3rver, ` +
        `presigned URLs expiring every ${EXPIRES} s vs plain HTTP, ${ROUNDS} rounds, ` +
        `${CONCURRENCY} gets in flight`,
    );
    await callBenchPage<S3BenchConfig, S3EpochResult[]>(
      page,
      'runBench',
      cfg(['http', 'presigned']),
    ); // warm-up
    const rounds: S3EpochResult[][] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const modes: S3BenchConfig['modes'] = r % 2 ? ['http', 'presigned'] : ['presigned', 'http'];
      rounds.push(
        await callBenchPage<S3BenchConfig, S3EpochResult[]>(page, 'runBench', cfg(modes)),
      );
    }
    report(rounds);
  } finally {
    await browser.close();
    await server.close();
    await s3.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function report(rounds: S3EpochResult[][]): void {
  const rate = (e: S3EpochResult) => e.samples / (e.wallMs / 1000);
  const of = (round: S3EpochResult[], mode: string) =>
    round.find((e) => e.mode === mode) as S3EpochResult;
  const ratios = rounds.map((r) => rate(of(r, 'presigned')) / rate(of(r, 'http')));
  const modeRow = (mode: 'presigned' | 'http') => {
    const epochs = rounds.map((r) => of(r, mode));
    const rates = epochs.map(rate);
    return {
      name: mode,
      samplesPerSec: Math.round(median(rates)),
      minSamplesPerSec: Math.round(Math.min(...rates)),
      maxSamplesPerSec: Math.round(Math.max(...rates)),
      requests: median(epochs.map((e) => e.requests)),
      signCalls: epochs.reduce((a, e) => a + e.signCalls, 0),
      refreshes: epochs.reduce((a, e) => a + e.refreshes, 0),
      wrongLabels: epochs.reduce((a, e) => a + e.wrongLabels, 0),
    };
  };
  const rows = [
    modeRow('presigned'),
    modeRow('http'),
    {
      name: 's3-presigned-vs-http',
      ratio: round(median(ratios), 3),
      minRatio: round(Math.min(...ratios), 3),
      maxRatio: round(Math.max(...ratios), 3),
      rounds: rounds.length,
      expiresSec: EXPIRES,
    },
  ];
  console.log(
    '| row | samples/s (median, min–max) | requests (median) | signUrl calls (all rounds) | re-signs (all rounds) | wrong |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of rows.slice(0, 2) as ReturnType<typeof modeRow>[]) {
    console.log(
      `| ${r.name} | ${r.samplesPerSec} (${r.minSamplesPerSec}–${r.maxSamplesPerSec}) | ${r.requests} | ${r.signCalls} | ${r.refreshes} | ${r.wrongLabels} |`,
    );
  }
  const ratio = rows[2] as { ratio: number; minRatio: number; maxRatio: number };
  console.log(
    `s3-presigned-vs-http: ${ratio.ratio} (${ratio.minRatio}–${ratio.maxRatio}) = samples/s over presigned URLs / over plain HTTP, median of ${rounds.length} alternating rounds`,
  );
  console.log(JSON.stringify({ bench: 's3', rows }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
