// `pnpm bench augment [--scale F] [--rounds N] [--workers N] [--backend webgl|cpu] [--sizes 64,224]
//    [--consumer train|upload] [--cpu]`
//
// Augmentation after the cache, in Chromium: the demo's 64×64 grayscale samples and 224×224 RGB
// samples, batch 32, the standard medical recipe (flipH + rotate90 + intensity + gaussianNoise),
// all samples in a memory cache (so the rows measure the augment stage, not loading). Paths:
// `none` (no augmentation), `in-thread` (the DataLoader's augment function), `workers` (the
// augment worker pool, 2 workers), `gpu` (augmentBatchTf on the uploaded batch). Every path ends
// the same way: the batch becomes a tf.Tensor4D, then `--consumer train` (default) runs one
// trainOnBatch of a small CNN (conv 8×3×3/2 → global average pool → dense: what the pipeline
// feeds), or `--consumer upload` only awaits a reduction of it (the bare data pipeline; with
// every sample cached this baseline is a memory copy, so any per-pixel work shows as cost). costShare = 1 − samples/s of the path ÷ samples/s of `none` (the same pipeline
// without augmentation). Paths alternate within each round (A B C D, B C D A, …); a figure is the
// median of the rounds (at least 5), printed with its spread (min–max). --scale shortens the
// epochs (same shape); run it at full size only on a quiet machine. `--cpu` (Linux) also prints
// where the CPU went, in ms per sample (median of the rounds): the page's main thread, the
// Web Workers, the GPU process (with SwiftShader the "GPU" is these same CPU cores) and the
// rest of the browser — the way to tell a pipeline that waits from one that is CPU-bound.
import { chromium } from 'playwright';
import { arg, intArg, numArg } from './_args.js';
import { chromiumLaunchOptions } from './_chromium.js';
import { cpuTimes } from './_cpu.js';
import { callBenchPage, openBenchPage, serveBenchPage } from './_page.js';
import { median, round } from './_stats.js';
import type { AugmentBenchConfig, Measurement, Path } from './augment/main.js';

const SCALE = numArg('scale', 1);

const SIZES = {
  64: { label: '64x64', side: 64, channels: 1, samples: 2048 },
  224: { label: '224x224', side: 224, channels: 3, samples: 256 },
} as const;

async function run(cfg: AugmentBenchConfig): Promise<Measurement[]> {
  const server = await serveBenchPage('augment', {
    entries: ['index.html', 'augment.worker.ts'],
    include: ['@tensorflow/tfjs', 'comlink'],
  });
  const browser = await chromium.launch(
    chromiumLaunchOptions(['--enable-unsafe-swiftshader', '--use-angle=swiftshader']),
  );
  try {
    const page = await openBenchPage(browser, server.url, 'runAugmentBench', (msg) => {
      if (msg.type() === 'error') console.error(`  page: ${msg.text()}`);
    });
    if (cfg.cpu) await page.exposeFunction('benchCpuMark', () => cpuTimes());
    return await callBenchPage<AugmentBenchConfig, Measurement[]>(page, 'runAugmentBench', cfg);
  } finally {
    await browser.close();
    await server.close();
  }
}

function report(cfg: AugmentBenchConfig, ms: Measurement[]): void {
  const paths: Path[] = ['none', 'in-thread', 'workers', 'gpu'];
  const rows: {
    size: string;
    path: Path;
    samplesPerSec: number;
    costShare: number;
    minSamplesPerSec: number;
    maxSamplesPerSec: number;
    cpuMsPerSample?: Record<string, number>;
  }[] = [];
  for (const size of cfg.sizes) {
    const of = (path: Path) =>
      ms.filter((m) => m.size === size.label && m.path === path).map((m) => m.samplesPerSec);
    const none = median(of('none'));
    for (const path of paths) {
      const xs = of(path);
      const sps = median(xs);
      const cpus = ms
        .filter((m) => m.size === size.label && m.path === path && m.cpuMsPerSample)
        .map((m) => m.cpuMsPerSample!);
      const cpu =
        cpus.length === 0
          ? undefined
          : Object.fromEntries(
              Object.keys(cpus[0]!).map((k) => [k, round(median(cpus.map((c) => c[k]!)), 2)]),
            );
      rows.push({
        size: size.label,
        path,
        samplesPerSec: round(sps, 1),
        costShare: round(1 - sps / none, 3),
        minSamplesPerSec: round(Math.min(...xs), 1),
        maxSamplesPerSec: round(Math.max(...xs), 1),
        ...(cpu ? { cpuMsPerSample: cpu } : {}),
      });
    }
  }
  const header = ['size', 'path', 'samples/s (median)', 'spread (min–max)', 'cost share'];
  const lines = rows.map((r) => [
    r.size,
    r.path === 'workers' ? `workers (${cfg.workers})` : r.path,
    r.samplesPerSec.toFixed(1),
    `${r.minSamplesPerSec.toFixed(1)}–${r.maxSamplesPerSec.toFixed(1)}`,
    r.path === 'none' ? '-' : `${(r.costShare * 100).toFixed(1)} %`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(fmt(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));
  if (cfg.cpu) {
    console.log('CPU ms per sample (median of the rounds), by thread:');
    for (const r of rows) {
      const c = r.cpuMsPerSample ?? {};
      const total = Object.values(c).reduce((a, b) => a + b, 0);
      console.log(
        `  ${r.size} ${r.path.padEnd(9)} total ${total.toFixed(2)}: ${Object.entries(c)
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(', ')}`,
      );
    }
  }
  const get = (size: string, path: Path) => rows.find((r) => r.size === size && r.path === path);
  const w64 = get('64x64', 'workers');
  const w224 = get('224x224', 'workers');
  const t224 = get('224x224', 'in-thread');
  console.log(
    `targets: workers cost < 15 % at 64x64 (${w64 ? `${(w64.costShare * 100).toFixed(1)} %` : 'n/a'}); ` +
      `workers ≥ 1.6x in-thread at 224x224 (${w224 && t224 ? `${(w224.samplesPerSec / t224.samplesPerSec).toFixed(2)}x` : 'n/a'}). ` +
      `Batch ${cfg.batchSize}, ${cfg.workers} workers, TF.js backend ${cfg.backend}, consumer ${cfg.consumer}, median of ${cfg.rounds} rounds, ` +
      `samples per epoch: ${cfg.sizes.map((s) => `${s.label} ${s.samples}`).join(', ')}.`,
  );
  console.log(
    JSON.stringify({
      bench: 'augment',
      rows: rows.map(
        ({
          size,
          path,
          samplesPerSec,
          costShare,
          minSamplesPerSec,
          maxSamplesPerSec,
          cpuMsPerSample,
        }) => ({
          consumer: cfg.consumer,
          size,
          path,
          samplesPerSec,
          costShare,
          minSamplesPerSec,
          maxSamplesPerSec,
          ...(cpuMsPerSample ? { cpuMsPerSample } : {}),
        }),
      ),
    }),
  );
}

async function main(): Promise<void> {
  const picked = (arg('sizes') ?? '64,224').split(',').map((s) => SIZES[Number(s) as 64 | 224]);
  if (picked.some((s) => s === undefined)) throw new RangeError('--sizes takes 64 and/or 224');
  const cfg: AugmentBenchConfig = {
    sizes: picked.map((s) => ({ ...s, samples: Math.max(64, Math.round(s.samples * SCALE)) })),
    rounds: intArg('rounds', 5),
    batchSize: 32,
    workers: intArg('workers', 2),
    backend: arg('backend') ?? 'webgl',
    consumer: arg('consumer') === 'upload' ? 'upload' : 'train',
    cpu: process.argv.includes('--cpu'),
  };
  console.error(
    `augment bench: ${cfg.sizes.map((s) => `${s.label}×${s.channels} (${s.samples} samples)`).join(', ')}, ` +
      `batch ${cfg.batchSize}, ${cfg.workers} workers, backend ${cfg.backend}, consumer ${cfg.consumer}, ${cfg.rounds} rounds`,
  );
  report(cfg, await run(cfg));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
