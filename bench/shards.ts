// `pnpm bench shards [--samples 4000] [--latency 20] [--shards 8] [--concurrency 16]`
// Reads N samples over HTTP with added latency in Chromium (Playwright, Debian's chromium):
// one fetch per sample file vs WebDataset tar shards with merged, plan-driven range requests.
// Prints a table, then one JSON line as the last line.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { startRangeServer } from '../tests/fixtures-shards/rangeServer.js';
import { arg, intArg } from './_args.js';
import { chromiumLaunchOptions } from './_chromium.js';
import { callBenchPage, openBenchPage, previewBenchPage } from './_page.js';
import type { ShardsBenchConfig, ShardsRowResult } from './shards/main.js';

const SAMPLES = intArg('samples', 4000);
const LATENCY_MS = Number(arg('latency') ?? 20);
const SHARDS = intArg('shards', 8);
const CONCURRENCY = intArg('concurrency', 16);

/** Seeded bytes standing in for an encoded 64x64 image (2-6 KB); byte 0 carries the label. */
function imageBytes(i: number): Uint8Array {
  let x = (i * 2654435761) >>> 0 || 1;
  const out = new Uint8Array(2048 + ((i * 7919) % 4096));
  for (let k = 0; k < out.length; k++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[k] = x & 0xff;
  }
  out[0] = i % 10;
  return out;
}

/** Files for the per-file rows, GNU tar shards + sidecars (from `tar -tvR`) + manifest for the shard rows. */
function buildData(root: string): { keys: string[]; shardSizes: number[] } {
  const files = join(root, 'files');
  mkdirSync(files, { recursive: true });
  const keys: string[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const key = `sample${String(i).padStart(6, '0')}`;
    keys.push(key);
    writeFileSync(join(files, `${key}.png`), imageBytes(i));
    writeFileSync(join(files, `${key}.cls`), String(i % 10));
  }
  const shardSizes: number[] = [];
  const per = Math.ceil(SAMPLES / SHARDS);
  const shards: { url: string; samples: number }[] = [];
  for (let s = 0; s * per < SAMPLES; s++) {
    const members = keys.slice(s * per, (s + 1) * per).flatMap((k) => [`${k}.cls`, `${k}.png`]);
    const name = `shard-${String(s).padStart(6, '0')}.tar`;
    const listFile = join(root, `${name}.list`);
    writeFileSync(listFile, members.join('\n'));
    execFileSync('tar', ['--format=gnu', '-cf', join(root, name), '-C', files, '-T', listFile]);
    const listing = execFileSync('tar', ['-tvR', '-f', join(root, name)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const entries: [string, number, number][] = [];
    for (const line of listing.split('\n')) {
      const m = /^block (\d+): (\S+)\s+\S+\s+(\d+) \S+ \S+ (.+)$/.exec(line);
      if (m && (m[2] as string).startsWith('-')) {
        entries.push([m[4] as string, (Number(m[1]) + 1) * 512, Number(m[3])]);
      }
    }
    writeFileSync(
      join(root, `${name}.idx.json`),
      JSON.stringify({ format: 'medfusion-tar-index', version: 1, entries }),
    );
    shardSizes.push(members.length / 2);
    shards.push({ url: name, samples: members.length / 2 });
  }
  writeFileSync(join(root, 'manifest.json'), JSON.stringify({ shards }));
  return { keys, shardSizes };
}

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
  const { keys, shardSizes } = buildData(tmp);
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
