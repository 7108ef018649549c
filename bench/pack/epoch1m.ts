// The epoch-1M row of `pnpm bench pack` (issue 45): --archive-samples small PNGs packed
// by `medfusion pack --shard-size 4MB`, served by nginx on 127.0.0.1, read as one shuffled
// epoch by 4 ranks, each its own Node process (bench/pack/epochRead.ts says how it reads),
// all 4 at once as 4 machines would. Against it, in
// alternating rounds: the same shards' bytes read with plain range requests (4 processes
// at once, each fetching a quarter of the shards in 4 MB ranges, nothing else done).
// Checked every round: every sample once across the ranks, each rank's bytes <= 0.3 of
// the data set, the first batch within 2 s of open(), each rank's resident growth (from
// before open(), and from a tenth of the epoch on: the part that would grow with the data set).
// Figures: samples/s of the epoch (median), its ratio to the plain reads' rate (median of
// per-round ratios), worst rank's byte share, first batch and memory growth (worst rank).
// Then, unless `chromium` is false, one epoch per round in Chromium, one rank of worldSize 1
// over the same nginx (bench/pack/epochChromium.ts): every sample once, bytes fetched ÷ data
// set (the source's count and Chromium's network count), first batch, samples/s, and the
// page's JS heap growth (from before open(), and from a tenth of the epoch on).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startNginx } from '../../tests/fixtures-shards/nginx.js';
import { median, round } from '../_stats.js';
import { printTable } from '../_table.js';
import { type ChromiumEpoch, chromiumEpochs } from './epochChromium.js';
import { countIds, type EpochReadReport, missingAndTwice } from './epochRead.js';

/** Run `node <args>` to its end; its stdout (it must succeed). */
function node(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`node ${args.join(' ')}: ${err}`)),
    );
  });
}

// The built packages (pnpm bench pack builds them first), as a user runs them: with
// --conditions=@medfusion/source each rank would also transpile the sources while it opens.
const TSX = ['--import', 'tsx'];

/** A script that fetches the given shards in 4 MB range requests and prints the bytes. */
const PLAIN_READER = `
const [base, ...names] = process.argv.slice(1);
let bytes = 0;
for (const name of names) {
  const size = Number(name.split(':')[1]);
  for (let at = 0; at < size; at += 4 << 20) {
    const end = Math.min(size, at + (4 << 20)) - 1;
    const res = await fetch(base + name.split(':')[0], { headers: { Range: 'bytes=' + at + '-' + end } });
    if (res.status !== 206) throw new Error('HTTP ' + res.status);
    bytes += (await res.arrayBuffer()).byteLength;
  }
}
console.log(bytes);
`;

/**
 * The epoch-1M rows over the data set packed in `dataset` (its `manifest.json`), `rounds`
 * rounds of the Node ranks, then (`chromium`) `rounds` Chromium epochs.
 */
export async function epochRows(
  tmp: string,
  dataset: string,
  rounds: number,
  chromium: boolean,
): Promise<Record<string, unknown>[]> {
  const manifest = JSON.parse(readFileSync(join(dataset, 'manifest.json'), 'utf8')) as {
    count: number;
    shards: { url: string; bytes: number }[];
  };
  const total = manifest.shards.reduce((a, s) => a + s.bytes, 0);
  const server = await startNginx(dataset, join(tmp, 'nginx'));
  const world = 4;
  const rates: number[] = [];
  const ratios: number[] = [];
  let worstShare = 0;
  let worstFirstMs = 0;
  let worstGrowthMB = 0;
  let worstLateMB = 0;
  let missing = 0;
  let twice = 0;
  let browser: ChromiumEpoch[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const epochFirst = r % 2 === 0;
      let epochMs = 0;
      let plainMs = 0;
      let roundFirstMs = 0;
      let roundLateMB = 0;
      for (const which of epochFirst ? ['epoch', 'plain'] : ['plain', 'epoch']) {
        const t0 = performance.now();
        if (which === 'epoch') {
          const reports = (
            await Promise.all(
              Array.from({ length: world }, (_, rank) =>
                node([
                  ...TSX,
                  'bench/pack/epochRank.ts',
                  `${server.url}manifest.json`,
                  String(rank),
                  String(world),
                  join(tmp, `ids-${rank}`),
                ]),
              ),
            )
          ).map((out) => JSON.parse(out.trim().split('\n').at(-1) as string) as EpochReadReport);
          epochMs = performance.now() - t0;
          const seen = new Uint8Array(manifest.count);
          for (let rank = 0; rank < world; rank++) {
            countIds(seen, new Uint32Array(readFileSync(join(tmp, `ids-${rank}`)).buffer.slice(0)));
            rmSync(join(tmp, `ids-${rank}`));
          }
          const counts = missingAndTwice(seen);
          missing += counts.missing;
          twice += counts.twice;
          for (const rep of reports) {
            worstShare = Math.max(worstShare, rep.bytesRead / total);
            worstFirstMs = Math.max(worstFirstMs, rep.firstBatchMs);
            worstGrowthMB = Math.max(worstGrowthMB, (rep.memPeak - rep.memBefore) / 2 ** 20);
            worstLateMB = Math.max(worstLateMB, (rep.memLatePeak - rep.memAtTenth) / 2 ** 20);
            roundFirstMs = Math.max(roundFirstMs, rep.firstBatchMs);
            roundLateMB = Math.max(roundLateMB, (rep.memLatePeak - rep.memAtTenth) / 2 ** 20);
          }
        } else {
          const quarters = Array.from({ length: world }, (_, q) =>
            manifest.shards.filter((_, s) => s % world === q).map((s) => `${s.url}:${s.bytes}`),
          );
          await Promise.all(
            quarters.map((names) =>
              node(['--input-type=module', '-e', PLAIN_READER, server.url, ...names]),
            ),
          );
          plainMs = performance.now() - t0;
        }
      }
      rates.push(manifest.count / (epochMs / 1000));
      ratios.push(plainMs / epochMs);
      console.error(
        `  epoch round ${r + 1}: 4 ranks ${(epochMs / 1000).toFixed(1)} s, plain range reads ${(plainMs / 1000).toFixed(1)} s, ` +
          `slowest first batch ${roundFirstMs.toFixed(0)} ms, growth after a tenth ${roundLateMB.toFixed(1)} MB`,
      );
    }
    if (chromium) {
      browser = await chromiumEpochs(
        `${server.url}manifest.json`,
        manifest.count,
        rounds,
        join(tmp, 'epoch-page'),
        (e, r) =>
          console.error(
            `  Chromium epoch ${r + 1}: ${(e.wallMs / 1000).toFixed(1)} s, first batch ${e.firstBatchMs.toFixed(0)} ms, ` +
              `${(e.networkBytes / total).toFixed(3)}x the data set over the network, ` +
              `JS heap ${mb(e.memBefore)} -> ${mb(e.memAtTenth)} at a tenth -> ${mb(e.memLatePeak)} MB at most after`,
          ),
      );
    }
  } finally {
    await server.stop();
  }
  const datasetMB = total / 1e6;
  printTable(
    ['row', 'figure', 'spread', 'target'],
    [
      [
        `epoch-1M (${manifest.count} samples, ${datasetMB.toFixed(0)} MB, 4 ranks, samples/s)`,
        median(rates).toFixed(0),
        `${Math.min(...rates).toFixed(0)}-${Math.max(...rates).toFixed(0)}`,
        '',
      ],
      [
        'epoch-1M / plain range reads of the same shards',
        median(ratios).toFixed(3),
        `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
        '>= 0.8',
      ],
      ['largest share of the bytes one rank fetched', worstShare.toFixed(3), '', '<= 0.3'],
      ['slowest first batch after open() (ms)', worstFirstMs.toFixed(0), '', '<= 2000'],
      ['largest resident growth of a rank (MB)', worstGrowthMB.toFixed(1), '', ''],
      [
        'largest growth after the first tenth of the epoch (MB)',
        worstLateMB.toFixed(1),
        '',
        '<= 64',
      ],
      ['samples missing / read twice (all rounds)', `${missing} / ${twice}`, '', '0 / 0'],
      ...(browser.length ? chromiumTable(browser, manifest.count, total) : []),
    ],
  );
  statSync(dataset);
  return [
    {
      ...(browser.length ? { chromium: chromiumJson(browser, total) } : {}),
      name: 'epoch-1M',
      samplesPerSec: round(median(rates), 0),
      ratio: round(median(ratios), 3),
      maxRankShare: round(worstShare, 3),
      firstBatchMs: round(worstFirstMs, 0),
      rankGrowthMB: round(worstGrowthMB, 1),
      rankLateGrowthMB: round(worstLateMB, 1),
      missing,
      twice,
      samples: manifest.count,
      target: 0.8,
    },
  ];
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const rateOf = (e: ChromiumEpoch) => e.samples / (e.wallMs / 1000);
const worst = (epochs: ChromiumEpoch[], f: (e: ChromiumEpoch) => number) =>
  Math.max(...epochs.map(f));
const heapGrowth = (e: ChromiumEpoch) => (e.memPeak - e.memBefore) / 2 ** 20;
const heapLateGrowth = (e: ChromiumEpoch) => (e.memLatePeak - e.memAtTenth) / 2 ** 20;

/** The Chromium epochs' rows (figures over all epochs: samples/s a median, the rest the worst). */
function chromiumTable(epochs: ChromiumEpoch[], count: number, total: number): string[][] {
  const rates = epochs.map(rateOf);
  return [
    [
      `Chromium, 1 rank of 1 (${epochs.length} epochs, samples/s)`,
      median(rates).toFixed(0),
      `${Math.min(...rates).toFixed(0)}-${Math.max(...rates).toFixed(0)}`,
      '',
    ],
    [
      'Chromium: bytes the source fetched / the data set',
      worst(epochs, (e) => e.bytesRead / total).toFixed(3),
      '',
      '',
    ],
    [
      'Chromium: bytes received from the network / the data set',
      worst(epochs, (e) => e.networkBytes / total).toFixed(3),
      `${worst(epochs, (e) => e.networkRequests)} requests, ${worst(epochs, (e) => e.networkFailed)} failed`,
      '',
    ],
    [
      'Chromium: first batch after open() (ms)',
      worst(epochs, (e) => e.firstBatchMs).toFixed(0),
      '',
      '<= 2000',
    ],
    ['Chromium: JS heap growth (MB)', worst(epochs, heapGrowth).toFixed(1), '', ''],
    [
      'Chromium: JS heap growth after the first tenth (MB)',
      worst(epochs, heapLateGrowth).toFixed(1),
      '',
      '<= 64',
    ],
    [
      `Chromium: samples missing / read twice (of ${count}, all epochs)`,
      `${epochs.reduce((a, e) => a + e.missing, 0)} / ${epochs.reduce((a, e) => a + e.twice, 0)}`,
      '',
      '0 / 0',
    ],
  ];
}

/** The Chromium epochs' fields of the epoch-1M JSON row. */
function chromiumJson(epochs: ChromiumEpoch[], total: number): Record<string, unknown> {
  return {
    worldSize: 1,
    epochs: epochs.length,
    samplesPerSec: round(median(epochs.map(rateOf)), 0),
    byteShare: round(
      worst(epochs, (e) => e.bytesRead / total),
      3,
    ),
    networkShare: round(
      worst(epochs, (e) => e.networkBytes / total),
      3,
    ),
    firstBatchMs: round(
      worst(epochs, (e) => e.firstBatchMs),
      0,
    ),
    heapGrowthMB: round(worst(epochs, heapGrowth), 1),
    heapLateGrowthMB: round(worst(epochs, heapLateGrowth), 1),
    missing: epochs.reduce((a, e) => a + e.missing, 0),
    twice: epochs.reduce((a, e) => a + e.twice, 0),
  };
}
