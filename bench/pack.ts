// `pnpm bench pack [--files 20000] [--rounds 5] [--archive-samples 1000000] [--archive-rounds 3]
//    [--epoch 0] [--epoch-samples 2000] [--epoch-strategy both] [--epoch-data <dir>]
//    [--epoch-chromium 0]
//    [--only writers,archive,cold-epoch]`
// `medfusion pack` against the writers a user would otherwise reach for, in one process,
// rounds alternating (A B C, B C A, C A B, ...), the first round a warm-up (page cache):
// - vs-gnu-tar: `medfusion pack <folder> --out <dir> --folder-labels` (no decode) of --files
//   small PNGs (64x64 grayscale, ~3.9 kB each, under two class folders) against GNU
//   `tar cf <file> -C <folder> .`; both write into the same temporary folder (same disk).
// - vs-python-tarfile: the same files through bench/pack/tarfile_writer.py (Debian's
//   /usr/bin/python3, standard-library tarfile doing what WebDataset's ShardWriter/TarWriter do:
//   `<key>.png` + `<key>.cls` per sample, shards rolled at the same 64 MB).
//   Ratios: ours over theirs in throughput (their wall time / ours), per round; the median.
// - archive rows (memory-1M, memory-per-sample, parts-read-x, parts-speedup): packing
//   --archive-samples small PNGs; bench/pack/archive.ts says how each is measured.
// - epoch-1M: one shuffled epoch of those samples, packed, over nginx, by 4 ranks in Node,
//   against plain range reads of the same shards (bench/pack/epoch1m.ts); --epoch-data <dir>
//   packs into <dir> once and reuses it (the 10^6 pack takes minutes). After the Node rounds,
//   one epoch per round in Chromium, one rank of worldSize 1 (bench/pack/epochChromium.ts);
//   --epoch-chromium 0 leaves it out.
// - cold-epoch-decoded-vs-png: the demo's cold epoch from `--decode` shards against per-file PNG
//   over HTTP, in Chromium, through the demo bench's page (bench/pack/epoch.ts says how);
//   --epoch 0 leaves the row out.
// --only runs some of the rows: writers (vs-gnu-tar, vs-python-tarfile), archive, epoch-1m,
// cold-epoch.
// Figures are wall times of whole commands (process start included, as a user sees them).
// Prints a table, then one JSON line as the last line.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, intArg } from './_args.js';
import { median, round } from './_stats.js';
import { printTable } from './_table.js';
import { archiveRows } from './pack/archive.js';
import { runColdEpoch } from './pack/epoch.js';
import { epochRows } from './pack/epoch1m.js';
import { writeSmallPngFolder } from './pack/smallPngFolder.js';
import { generatePngs } from './tfjs/pngs.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(repo, 'packages/cli/dist/bin.js');
const FILES = intArg('files', 20_000);
const ROUNDS = intArg('rounds', 5);
const ARCHIVE_SAMPLES = intArg('archive-samples', 1_000_000);
const ARCHIVE_ROUNDS = intArg('archive-rounds', 3);
const EPOCH = arg('epoch') !== '0';
const EPOCH_CHROMIUM = arg('epoch-chromium') !== '0';
const PARTS = ['writers', 'archive', 'epoch-1m', 'cold-epoch'] as const;
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
    if (ARCHIVE_SAMPLES > 0 && wanted('archive'))
      rows.push(...archiveRows(tmp, ARCHIVE_SAMPLES, ARCHIVE_ROUNDS));
    if (ARCHIVE_SAMPLES > 0 && wanted('epoch-1m')) {
      // --epoch-data <dir>: pack there once and reuse it in later runs (it is kept).
      const kept = arg('epoch-data');
      const dataset = kept ? resolve(kept) : join(tmp, 'epoch-ds');
      if (!existsSync(join(dataset, 'manifest.json'))) {
        const input = join(tmp, 'epoch-in');
        writeSmallPngFolder(input, ARCHIVE_SAMPLES);
        // Shards of 4 MB: a window of 4 is 16 MB, held whole by each rank's source.
        execFileSync(
          process.execPath,
          [BIN, 'pack', input, '--out', dataset, '--folder-labels', '--shard-size', '4MB'],
          { stdio: 'ignore' },
        );
        rmSync(input, { recursive: true, force: true });
      }
      rows.push(...(await epochRows(tmp, dataset, ARCHIVE_ROUNDS, EPOCH_CHROMIUM)));
    }
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
  rows.push({
    name: 'vs-python-tarfile',
    ratio: round(median(ratios.python), 3),
    files: FILES,
    target: 2.5,
  });
  printTable(['writer', 'median s', 'range s', 'MB/s', 'files/s'], table);
  console.log(
    `ratios (ours / theirs, throughput): vs GNU tar ${median(ratios.tar).toFixed(3)} [${ratios.tar.map((x) => x.toFixed(2)).join(', ')}], ` +
      `vs python tarfile ${median(ratios.python).toFixed(3)} [${ratios.python.map((x) => x.toFixed(2)).join(', ')}]`,
  );
  rmSync(input, { recursive: true, force: true });
  rmSync(join(tmp, 'out'), { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
