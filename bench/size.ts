// `pnpm bench size`: what an app pays, in bytes, for typical imports of the
// published packages. Each row bundles a one-line app (`export { … } from …`)
// with Vite's build API (Rolldown, minified, ES2022) against the packages' built
// `dist/` (the files npm installs; run `pnpm build` first), with their
// dependencies (comlink, idb, papaparse, …) bundled in and TF.js left external
// (the app pays for TF.js anyway). Workers the imports start (the OPFS worker)
// are bundled too and counted in the row. Sizes are deterministic: one build per
// row, no rounds. `tests/consumer/bundle-size.test.ts` holds each row to its
// `budget`, set from these figures (baseline + ~10 %).
import { gzipSync } from 'node:zlib';
import { build, defaultClientConditions, type Plugin, type Rollup } from 'vite';

/** One typical import of an app. */
export interface SizeScenario {
  /** Row label. */
  name: string;
  /** The app's whole source: what it imports. */
  code: string;
  /** Most minified+gzipped bytes allowed (main chunk + workers). */
  budget: number;
  /** Strings that must not be in the bundle (tree-shaking checks). */
  mustNotContain?: readonly string[];
}

/** The measured rows. */
export const SCENARIOS: readonly SizeScenario[] = [
  {
    name: 'core: LRUCache alone',
    code: "export { LRUCache } from '@medfusion/core';",
    budget: 2_300, // baseline 2_070 (Vite 8.3.8)
    // a marker of the engine (CachingEngine) and of the DataLoader
    mustNotContain: ['prefetch no longer needed', 'DataLoader'],
  },
  {
    name: 'core: createCachedDataset + DataLoader',
    code: "export { createCachedDataset, DataLoader } from '@medfusion/core';",
    budget: 24_600, // baseline 22_395 (Vite 8.3.8; was 20_153 before ranks (RankPlan) and the executor adapter joined the loader's and factory's path and CachedDataset became an engine configuration, 16_447 before autotune, epoch plans and the augment stage)
  },
  {
    name: 'web: stores (OpfsStore, IdbStore)',
    code: "export { IdbStore, OpfsStore } from '@medfusion/web';",
    budget: 50_300, // baseline 45_749 (Vite 8.3.8; was 37_403 before encryption at rest (AES-GCM sealing in both stores and the OPFS worker), maxAge and forget; 26_601 before xxHash64 value checksums: hash-wasm's WebAssembly on the page and in the OPFS worker, 2.3x faster on 150 KB values; 22_880 before the OPFS group commit)
  },
  {
    name: 'web: workers (createWorkerExecutor, exposeLoader)',
    code: "export { createWorkerExecutor, exposeLoader } from '@medfusion/web';",
    budget: 7_200, // baseline 6_562 (Vite 8.3.8; was 6_201 before load phases: PoolLoadPhases and exposeLoader's phases)
  },
  {
    name: 'web: createCachedDataset (cacheDir) + DataLoader',
    code: "export { createCachedDataset, DataLoader } from '@medfusion/web';",
    budget: 74_600, // baseline 67_825 (Vite 8.3.8; was 58_213 before encryption at rest, maxAge and forget in the stores, signUrl on every remote read and the shard format moving to core; 48_463 before xxHash64 value checksums (hash-wasm), 43_870 before demand-first scheduling, the disk tier's known misses and verified streamed OPFS reads)
  },
  {
    name: 'web/tfjs: toTfDataset (TF.js external)',
    code: "export { toTfDataset } from '@medfusion/web/tfjs';",
    budget: 1_850, // baseline 1_668 (Vite 8.3.8): toTfDataset checks its options through core's withDefault since #46 (1_261 before)
  },
  {
    name: 'web/webgpu: UploadRing, uploadBatch',
    code: "export { UploadRing, uploadBatch } from '@medfusion/web/webgpu';",
    budget: 4_100, // baseline 3_695 (Vite 8.3.8): the ring, its toFloat32 compute pass (WGSL) and core's toFloat32 checks
    mustNotContain: ['DataLoader', '@tensorflow'],
  },
];

/** One measured row. */
export interface SizeRow {
  /** Row label. */
  name: string;
  /** Minified bytes of every JS file the app gets (main chunk + workers). */
  minBytes: number;
  /** The same, each file gzipped (level 9) and added up. */
  gzipBytes: number;
  /** Gzipped bytes of worker files alone. */
  workerGzipBytes: number;
  /** The row's budget, gzipped bytes. */
  budget: number;
  /** `mustNotContain` strings found in the bundle. */
  leaked: string[];
}

const ENTRY = 'virtual:size-entry';

function entryPlugin(code: string): Plugin {
  return {
    name: 'medfusion-size-entry',
    resolveId: (id) => (id === ENTRY ? `\0${ENTRY}` : null),
    load: (id) => (id === `\0${ENTRY}` ? code : null),
  };
}

function outputsOf(result: Awaited<ReturnType<typeof build>>): Rollup.OutputBundle[string][] {
  const list = Array.isArray(result) ? result : [result];
  return list.flatMap((r) => ('output' in r ? r.output : []));
}

/** Bundle one scenario and measure it. */
export async function measure(scenario: SizeScenario): Promise<SizeRow> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    root: process.cwd(),
    plugins: [entryPlugin(scenario.code)],
    // the published files (dist), not the workspace's source condition
    resolve: { conditions: [...defaultClientConditions] },
    worker: { format: 'es' },
    build: {
      write: false,
      minify: true,
      target: 'es2022',
      modulePreload: false,
      reportCompressedSize: false,
      rollupOptions: {
        input: ENTRY,
        preserveEntrySignatures: 'strict',
        external: [/^@tensorflow\//],
      },
    },
  });
  let minBytes = 0;
  let gzipBytes = 0;
  let workerGzipBytes = 0;
  let text = '';
  for (const out of outputsOf(result)) {
    if (!out.fileName.endsWith('.js')) continue;
    const code = out.type === 'chunk' ? out.code : out.source;
    const bytes = typeof code === 'string' ? Buffer.from(code) : Buffer.from(code);
    const gz = gzipSync(bytes, { level: 9 }).length;
    minBytes += bytes.length;
    gzipBytes += gz;
    if (out.type === 'asset') workerGzipBytes += gz; // Vite emits bundled workers as assets
    text += bytes.toString('utf8');
  }
  const leaked = (scenario.mustNotContain ?? []).filter((s) => text.includes(s));
  return {
    name: scenario.name,
    minBytes,
    gzipBytes,
    workerGzipBytes,
    budget: scenario.budget,
    leaked,
  };
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

async function main(): Promise<void> {
  const rows: SizeRow[] = [];
  for (const s of SCENARIOS) rows.push(await measure(s));
  const w = Math.max(...rows.map((r) => r.name.length));
  console.log(
    `${'import'.padEnd(w)}  ${'min'.padStart(9)}  ${'min+gz'.padStart(9)}  ${'workers gz'.padStart(10)}  ${'budget gz'.padStart(9)}`,
  );
  for (const r of rows) {
    const over = r.gzipBytes > r.budget ? '  OVER BUDGET' : '';
    const leak = r.leaked.length ? `  PULLS ${r.leaked.join(', ')}` : '';
    console.log(
      `${r.name.padEnd(w)}  ${kb(r.minBytes).padStart(9)}  ${kb(r.gzipBytes).padStart(9)}  ${kb(r.workerGzipBytes).padStart(10)}  ${kb(r.budget).padStart(9)}${over}${leak}`,
    );
  }
  console.log(
    JSON.stringify({
      bench: 'size',
      rows: rows.map((r) => ({
        import: r.name,
        minBytes: r.minBytes,
        gzipBytes: r.gzipBytes,
        workerGzipBytes: r.workerGzipBytes,
        budgetBytes: r.budget,
      })),
    }),
  );
}

if (process.argv[1]?.endsWith('size.ts')) await main();
