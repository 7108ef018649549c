// The archive-scale rows of `pnpm bench pack` (issue 45), on ImageFolders of small
// distinct PNGs (16x16, 340 bytes; bench/pack/smallPngFolder.ts):
// - memory-1M: peak resident memory (/usr/bin/time's max RSS: the process with its
//   worker threads) of `medfusion pack --folder-labels` of --archive-samples files.
// - memory-per-sample: the growth of that peak from --archive-samples / 10 files to
//   --archive-samples, in bytes per sample.
//   Both are medians of --archive-rounds runs, the two sizes alternating.
// - parts-read-x: bytes of input read by the 4 parts of `--part i/4` together
//   (the kernel's rchar of each process, /proc/self/io), less 4 times what a one-file
//   pack reads (Node, the modules), over the input's bytes.
// - parts-speedup: the one-machine pack's wall time over the slowest of the 4 parts
//   run one after another (as 4 machines would run them at once), the parts packing
//   from one listing (`medfusion list` once, then `pack --listing`); per round, the median.
//   Reported beside it: the same with the listing's time added (list, then the parts:
//   what 4 machines take end to end), and with each part walking the input itself
//   (no listing; parts-read-x counts these parts' reads: a listing is ~28 bytes a
//   file, more than a tenth of these 340-byte files, read by every part).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, runCliCountingReads } from '../../tests/cli/cliHelpers.js';
import { median, round } from '../_stats.js';
import { printTable } from '../_table.js';
import { writeSmallPngFolder } from './smallPngFolder.js';

/** Wall seconds and peak RSS (MB) of `medfusion <args>` (it must succeed). */
function packTimed(args: string[]): { secs: number; peakMB: number } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, BIN, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  const secs = (performance.now() - t0) / 1000;
  const kb = Number(/maxrss_kb=(\d+)/.exec(r.stderr)?.[1]);
  if (r.status !== 0 || !Number.isFinite(kb))
    throw new Error(`medfusion ${args.join(' ')} failed: ${r.stderr}`);
  return { secs, peakMB: kb / 1024 };
}

const spread = (xs: number[], digits = 1) =>
  `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;

/** The archive rows, `samples` files at the large size, `rounds` rounds. */
export function archiveRows(
  tmp: string,
  samples: number,
  rounds: number,
): Record<string, unknown>[] {
  const small = Math.round(samples / 10);
  const big = join(tmp, 'archive-big');
  const little = join(tmp, 'archive-small');
  const tiny = join(tmp, 'archive-tiny');
  console.error(`archive: writing ${samples} + ${small} small PNGs…`);
  const inputBytes = writeSmallPngFolder(big, samples, (d) => console.error(`  ${d} files`));
  writeSmallPngFolder(little, small);
  writeSmallPngFolder(tiny, 1);
  const out = (name: string) => {
    const dir = join(tmp, name);
    rmSync(dir, { recursive: true, force: true });
    return dir;
  };
  const peaks = { big: [] as number[], small: [] as number[] };
  const ones: number[] = [];
  const slowest: number[] = [];
  const speedups: number[] = [];
  const withList: number[] = [];
  const walking: number[] = [];
  const listSecs: number[] = [];
  const readX: number[] = [];
  const listing = join(tmp, 'listing.tsv');
  for (let r = 0; r < rounds; r++) {
    // memory: the two sizes alternating
    const order = r % 2 ? (['small', 'big'] as const) : (['big', 'small'] as const);
    for (const size of order) {
      const input = size === 'big' ? big : little;
      peaks[size].push(packTimed(['pack', input, '--out', out('o'), '--folder-labels']).peakMB);
    }
    // one machine, then the 4 parts one after another (reads counted)
    const one = packTimed(['pack', big, '--out', out('o'), '--folder-labels']).secs;
    rmSync(join(tmp, 'o'), { recursive: true, force: true });
    const base = runCliCountingReads(['pack', tiny, '--out', out('t'), '--folder-labels']);
    if (base.code !== 0) throw new Error(`tiny pack failed: ${base.stderr}`);
    let read = 0;
    const walkSecs: number[] = [];
    for (let i = 1; i <= 4; i++) {
      const t0 = performance.now();
      const part = runCliCountingReads([
        'pack',
        big,
        '--out',
        out(`p${i}`),
        '--folder-labels',
        '--part',
        `${i}/4`,
      ]);
      walkSecs.push((performance.now() - t0) / 1000);
      if (part.code !== 0) throw new Error(`part ${i}/4 failed: ${part.stderr}`);
      read += part.rchar - base.rchar;
      rmSync(join(tmp, `p${i}`), { recursive: true, force: true });
    }
    // one listing, then the 4 parts from it
    const list = packTimed(['list', big, '--out', listing]).secs;
    const partSecs: number[] = [];
    for (let i = 1; i <= 4; i++) {
      const args = ['pack', big, '--out', out(`p${i}`), '--folder-labels', '--part', `${i}/4`];
      partSecs.push(packTimed([...args, '--listing', listing]).secs);
      rmSync(join(tmp, `p${i}`), { recursive: true, force: true });
    }
    const slow = Math.max(...partSecs);
    ones.push(one);
    slowest.push(slow);
    listSecs.push(list);
    speedups.push(one / slow);
    withList.push(one / (list + slow));
    walking.push(one / Math.max(...walkSecs));
    readX.push(read / inputBytes);
    console.error(
      `  round ${r + 1}: peak ${peaks.big.at(-1)?.toFixed(0)} / ${peaks.small.at(-1)?.toFixed(0)} MB, one machine ${one.toFixed(1)} s, list ${list.toFixed(1)} s, parts from it ${partSecs.map((s) => s.toFixed(1)).join(' ')} s, parts walking ${walkSecs.map((s) => s.toFixed(1)).join(' ')} s (read ${(read / inputBytes).toFixed(3)}x)`,
    );
  }
  for (const dir of [big, little, tiny, join(tmp, 't'), listing])
    rmSync(dir, { recursive: true, force: true });
  const perSample = peaks.big.map(
    (b, i) => ((b - (peaks.small[i] as number)) * 2 ** 20) / (samples - small),
  );
  const rows = [
    { name: 'memory-1M', peakRssMB: round(median(peaks.big), 1), samples, target: 300 },
    {
      name: 'memory-per-sample',
      bytesPerSample: round(median(perSample), 1),
      from: small,
      to: samples,
      target: 50,
    },
    { name: 'parts-read-x', ratio: round(median(readX), 3), parts: 4, target: 1.1 },
    {
      name: 'parts-speedup',
      ratio: round(median(speedups), 3),
      oneMachineSecs: round(median(ones), 1),
      slowestPartSecs: round(median(slowest), 1),
      listSecs: round(median(listSecs), 1),
      target: 3.2,
    },
    { name: 'parts-speedup-with-list', ratio: round(median(withList), 3) },
    { name: 'parts-speedup-walking', ratio: round(median(walking), 3) },
  ];
  printTable(
    ['row', 'median', 'spread', 'target'],
    [
      ['memory-1M (peak RSS, MB)', median(peaks.big).toFixed(0), spread(peaks.big, 0), '<= 300'],
      [
        `memory-per-sample (${small} -> ${samples}, B)`,
        median(perSample).toFixed(1),
        spread(perSample),
        '<= 50',
      ],
      ['parts-read-x (4 parts, x input)', median(readX).toFixed(3), spread(readX, 3), '<= 1.1'],
      [
        `parts-speedup (one ${median(ones).toFixed(1)} s / slowest part ${median(slowest).toFixed(1)} s, one listing)`,
        median(speedups).toFixed(2),
        spread(speedups, 2),
        '>= 3.2',
      ],
      [
        `  with the listing's ${median(listSecs).toFixed(1)} s (list + slowest part)`,
        median(withList).toFixed(2),
        spread(withList, 2),
        '',
      ],
      ['  each part walking the input', median(walking).toFixed(2), spread(walking, 2), ''],
    ],
  );
  mkdirSync(tmp, { recursive: true });
  return rows;
}
