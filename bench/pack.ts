// `pnpm bench pack [--files 20000] [--rounds 5] [--memory-samples 200000] [--epoch 0]
//    [--epoch-samples 2000] [--epoch-strategy both] [--only writers,memory,cold-epoch]`
// `medfusion pack` against the writers a user would otherwise reach for, in one process,
// rounds alternating (A B C, B C A, C A B, ...), the first round a warm-up (page cache):
// - vs-gnu-tar: `medfusion pack <folder> --out <dir> --folder-labels` (no decode) of --files
//   small PNGs (64x64 grayscale, ~3.9 kB each, under two class folders) against GNU
//   `tar cf <file> -C <folder> .`; both write into the same temporary folder (same disk).
// - vs-python-tarfile: the same files through bench/pack/tarfile_writer.py (Debian's
//   /usr/bin/python3, standard-library tarfile doing what WebDataset's ShardWriter/TarWriter do:
//   `<key>.png` + `<key>.cls` per sample, shards rolled at the same 64 MB).
//   Ratios: ours over theirs in throughput (their wall time / ours), per round; the median.
// - memory-200k: peak resident memory (/usr/bin/time's max RSS: the process with its worker
//   threads) of packing --memory-samples small PNGs (one run).
// - cold-epoch-decoded-vs-png: the demo's cold epoch from `--decode` shards against per-file PNG
//   over HTTP, in Chromium, through the demo bench's page (bench/pack/epoch.ts says how);
//   --epoch 0 leaves the row out.
// --only runs some of the rows: writers (vs-gnu-tar, vs-python-tarfile), memory, cold-epoch.
// Figures are wall times of whole commands (process start included, as a user sees them).
// Prints a table, then one JSON line as the last line.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, intArg } from './_args.js';
import { median, round } from './_stats.js';
import { printTable } from './_table.js';
import { runColdEpoch } from './pack/epoch.js';
import { generatePngs } from './tfjs/pngs.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(repo, 'packages/cli/dist/bin.js');
const FILES = intArg('files', 20_000);
const ROUNDS = intArg('rounds', 5);
const MEMORY_SAMPLES = Number(arg('memory-samples') ?? 200_000);
const EPOCH = arg('epoch') !== '0';
const PARTS = ['writers', 'memory', 'cold-epoch'] as const;
const ONLY = arg('only')?.split(',');
for (const p of ONLY ?? []) {
  if (!(PARTS as readonly string[]).includes(p))
    throw new RangeError(`--only: unknown part ${p} (${PARTS.join(', ')})`);
}
/** Whether --only (or its absence) asks for `part`. */
const wanted = (part: (typeof PARTS)[number]) => ONLY === undefined || ONLY.includes(part);
const SHARD_BYTES = 64e6;

/** `n` PNGs as `<root>/<a|b>/img-NNNNNN.png` (200 distinct images, repeated). */
function writeFolder(root: string, n: number): number {
  const pngs = generatePngs(200);
  let bytes = 0;
  for (const label of ['a', 'b']) mkdirSync(join(root, label), { recursive: true });
  for (let i = 0; i < n; i++) {
    const png = pngs[i % pngs.length] as Uint8Array;
    writeFileSync(join(root, i % 2 ? 'b' : 'a', `img-${String(i).padStart(6, '0')}.png`), png);
    bytes += png.length;
  }
  return bytes;
}

/** Wall seconds of a command (it must succeed). */
function timed(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const secs = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return secs;
}

type Writer = { name: string; run: (out: string) => number };

async function main(): Promise<void> {
  for (const pkg of ['core', 'web', 'cli'])
    execFileSync('pnpm', ['run', 'build'], { cwd: join(repo, 'packages', pkg), stdio: 'ignore' });
  const tmp = mkdtempSync(join(tmpdir(), 'medfusion-bench-pack-'));
  const rows: Record<string, unknown>[] = [];
  try {
    if (wanted('writers')) writersRows(tmp, rows);
    if (MEMORY_SAMPLES > 0 && wanted('memory')) rows.push(memoryRow(tmp));
    if (EPOCH && wanted('cold-epoch')) rows.push(...(await runColdEpoch(tmp, BIN, ROUNDS)));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ bench: 'pack', rows }));
}

/** The writers' rows: medfusion pack against GNU tar and Python's tarfile, alternating rounds. */
function writersRows(tmp: string, rows: Record<string, unknown>[]): void {
  const table: string[][] = [];
  const input = join(tmp, 'in');
  const inputBytes = writeFolder(input, FILES);
  const writers: Writer[] = [
    {
      name: 'medfusion pack',
      run: (out) => timed(process.execPath, [BIN, 'pack', input, '--out', out, '--folder-labels']),
    },
    { name: 'GNU tar cf', run: (out) => timed('tar', ['cf', `${out}.tar`, '-C', input, '.']) },
    {
      name: 'python tarfile (WebDataset layout)',
      run: (out) =>
        timed('/usr/bin/python3', [
          join(repo, 'bench/pack/tarfile_writer.py'),
          input,
          out,
          String(SHARD_BYTES),
        ]),
    },
  ];
  const secs = new Map<string, number[]>(writers.map((w) => [w.name, []]));
  const ratios = { tar: [] as number[], python: [] as number[] };
  console.error(
    `pack bench: ${FILES} PNGs (${(inputBytes / 1e6).toFixed(1)} MB), ${ROUNDS} rounds after a warm-up, writers alternating`,
  );
  for (let r = 0; r <= ROUNDS; r++) {
    const round = new Map<string, number>();
    for (let k = 0; k < writers.length; k++) {
      const w = writers[(r + k) % writers.length] as Writer;
      const out = join(tmp, 'out');
      rmSync(out, { recursive: true, force: true });
      rmSync(`${out}.tar`, { force: true });
      round.set(w.name, w.run(out));
    }
    if (r === 0) continue; // warm-up: the page cache holds the input from here on
    for (const [name, s] of round) secs.get(name)?.push(s);
    const ours = round.get('medfusion pack') as number;
    ratios.tar.push((round.get('GNU tar cf') as number) / ours);
    ratios.python.push((round.get('python tarfile (WebDataset layout)') as number) / ours);
    console.error(
      `  round ${r}: ${[...round].map(([n, s]) => `${n} ${s.toFixed(2)} s`).join(', ')}`,
    );
  }
  for (const w of writers) {
    const s = secs.get(w.name) as number[];
    const m = median(s);
    table.push([
      w.name,
      m.toFixed(2),
      `${Math.min(...s).toFixed(2)}-${Math.max(...s).toFixed(2)}`,
      (inputBytes / 1e6 / m).toFixed(1),
      (FILES / m).toFixed(0),
    ]);
  }
  rows.push({ name: 'vs-gnu-tar', ratio: round(median(ratios.tar), 3), files: FILES });
  rows.push({ name: 'vs-python-tarfile', ratio: round(median(ratios.python), 3), files: FILES });
  printTable(['writer', 'median s', 'range s', 'MB/s', 'files/s'], table);
  console.log(
    `ratios (ours / theirs, throughput): vs GNU tar ${median(ratios.tar).toFixed(3)} [${ratios.tar.map((x) => x.toFixed(2)).join(', ')}], ` +
      `vs python tarfile ${median(ratios.python).toFixed(3)} [${ratios.python.map((x) => x.toFixed(2)).join(', ')}]`,
  );
  rmSync(input, { recursive: true, force: true });
  rmSync(join(tmp, 'out'), { recursive: true, force: true });
}

/** Pack MEMORY_SAMPLES small PNGs once under /usr/bin/time; its max RSS. */
function memoryRow(tmp: string): Record<string, unknown> {
  const input = join(tmp, 'mem');
  writeFolder(input, MEMORY_SAMPLES);
  const out = join(tmp, 'mem-out');
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'maxrss_kb=%M', process.execPath, BIN, 'pack', input, '--out', out, '--folder-labels'],
    { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const secs = (performance.now() - t0) / 1000;
  const kb = Number(/maxrss_kb=(\d+)/.exec(r.stderr)?.[1]);
  if (r.status !== 0 || !Number.isFinite(kb)) throw new Error(`memory run failed: ${r.stderr}`);
  const peakRssMB = round(kb / 1024, 1);
  console.log(
    `memory: packing ${MEMORY_SAMPLES} samples peaked at ${peakRssMB} MB resident (${secs.toFixed(1)} s)`,
  );
  rmSync(input, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
  return { name: 'memory-200k', peakRssMB, samples: MEMORY_SAMPLES, secs: round(secs, 1) };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
