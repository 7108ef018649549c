// `pnpm bench shards [--samples 4000] [--latency 20] [--shards 8] [--concurrency 16]`
// Reads N samples over HTTP with added latency in Chromium (Playwright, Debian's chromium):
// one fetch per sample file vs WebDataset tar shards with merged, plan-driven range requests.
// Prints a table, then one JSON line as the last line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { startRangeServer } from '../tests/fixtures-shards/rangeServer.js';
import { arg, intArg } from './_args.js';
import { chromiumLaunchOptions } from './_chromium.js';
import { callBenchPage, openBenchPage, previewBenchPage } from './_page.js';
import { buildShardData } from './_shardData.js';
import type { ShardsBenchConfig, ShardsRowResult } from './shards/main.js';

const SAMPLES = intArg('samples', 4000);
const LATENCY_MS = Number(arg('latency') ?? 20);
const SHARDS = intArg('shards', 8);
const CONCURRENCY = intArg('concurrency', 16);

const LABELS: Record<string, string> = {
  'fetch-per-file': 'one fetch per file (png + cls)',
  'fetch-per-sample': 'one fetch per sample (1 file)',
  'shards-shuffled': 'shards, shard-aware shuffle, sidecar index',
  'shards-streamed-index': 'shards, shuffle, index by streaming',
  'shards-sequential': 'shards, sequential, sidecar index',
};

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'medfusion-bench-shards-'));
  const t0 = performance.now();
  const { keys, shardSizes } = buildShardData(tmp, SAMPLES, SHARDS);
  const genMs = performance.now() - t0;
  const data = await startRangeServer({ root: tmp, delayMs: LATENCY_MS });
  const server = await previewBenchPage('shards', join(tmp, 'page'));
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const page = await openBenchPage(browser, server.url, 'runBench');
    const cfg: ShardsBenchConfig = {
      base: `${data.url}/plain/`,
      keys,
      shardSizes,
      concurrency: CONCURRENCY,
      lookahead: intArg('lookahead', 256),
      windowShards: intArg('window', 2),
      rows: (
        arg('rows') ??
        'fetch-per-file,fetch-per-sample,shards-shuffled,shards-streamed-index,shards-sequential'
      ).split(','),
    };
    console.error(
      `shards bench (Chromium): ${SAMPLES} samples in ${shardSizes.length} GNU tar shards ` +
        `(generated in ${genMs.toFixed(0)} ms), ${LATENCY_MS} ms added per request, ` +
        `${CONCURRENCY} gets in flight, lookahead ${cfg.lookahead}, window ${cfg.windowShards} shards, 6 connections per origin`,
    );
    const rows = await callBenchPage<ShardsBenchConfig, ShardsRowResult[]>(page, 'runBench', cfg);
    report(rows);
  } finally {
    await browser.close();
    await server.close();
    await data.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function report(rows: ShardsRowResult[]): void {
  const base = rows.find((r) => r.mode === 'fetch-per-sample') ?? rows[0];
  const baseRate = base ? base.samples / (base.wallMs / 1000) : 1;
  const out = rows.map((r) => {
    const samplesPerSec = r.samples / (r.wallMs / 1000);
    return {
      mode: r.mode,
      samples: r.samples,
      requests: r.requests,
      wallMs: Math.round(r.wallMs),
      samplesPerSec: Math.round(samplesPerSec),
      speedup: Math.round((samplesPerSec / baseRate) * 100) / 100,
      wrongLabels: r.wrongLabels,
    };
  });
  const header = ['mode', 'requests', 'wall ms', 'samples/s', 'speed-up', 'wrong'];
  const lines = out.map((r) => [
    LABELS[r.mode] ?? r.mode,
    String(r.requests),
    String(r.wallMs),
    String(r.samplesPerSec),
    `${r.speedup}x`,
    String(r.wrongLabels),
  ]);
  const widths = header.map((h, c) =>
    Math.max(h.length, ...lines.map((l) => (l[c] as string).length)),
  );
  const fmt = (cells: string[]) =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join(' | ')} |`;
  console.log(fmt(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines) console.log(fmt(l));
  console.log('speed-up is against one fetch per sample (the cheaper per-file baseline)');
  console.log(JSON.stringify({ bench: 'shards', rows: out }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
