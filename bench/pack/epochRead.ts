// One rank's shuffled epoch of the epoch-1M row (issue 45), the same code in Node (each rank
// its own process, bench/pack/epochRank.ts) and in Chromium (bench/pack/epochPage/): open the
// data set with WebDatasetSource from its manifest, read this rank's part of one shuffled epoch
// with a DataLoader (batch 64; ShardOrder with one span per rank (spans = worldSize), so a rank
// reads its span alone, windows of 4 shards; the source's lookahead one whole window, so each
// shard of a window is wanted whole by one chunk and read once, in one request, its sha256
// checked), and record the sample ids (the number in each key, the input file's index), the
// wall time, the time from open() to the first batch, the bytes the source fetched, and the
// memory `memory()` reports (Node: resident size; Chromium: the page's JS heap) before open(),
// at its highest, once a tenth of the batches are read and at its highest after that.
import { DataLoader, ShardOrder } from '@medfusion/core';
import { WebDatasetSource } from '@medfusion/web';

/** One rank's figures (bytes and milliseconds). */
export interface EpochReadReport {
  rank: number;
  worldSize: number;
  samples: number;
  wallMs: number;
  firstBatchMs: number;
  /** The source's `bytesRead` (sample data; sidecars and the manifest not counted). */
  bytesRead: number;
  rangeRequests: number;
  memBefore: number;
  memPeak: number;
  /** Once a tenth of the batches are read (code compiled, buffers and tables at their budgets). */
  memAtTenth: number;
  /** The highest from a tenth of the epoch on: what would grow with the samples read. */
  memLatePeak: number;
}

const BATCH = 64;

/** Samples per shard, as the manifest lists them. */
async function manifestShardSamples(url: string): Promise<number[]> {
  const manifest = (await (await fetch(url)).json()) as { shards: { samples: number }[] };
  return manifest.shards.map((s) => s.samples);
}

/** Read rank `rank` of `worldSize`'s part of one shuffled epoch; its report and the sample ids. */
export async function readEpoch(
  manifestUrl: string,
  rank: number,
  worldSize: number,
  memory: () => number,
): Promise<{ report: EpochReadReport; ids: Uint32Array }> {
  const memBefore = memory();
  let memPeak = memBefore;
  const t0 = performance.now();
  const largest = Math.max(...(await manifestShardSamples(manifestUrl)));
  const source = await WebDatasetSource.open({
    manifestUrl,
    transform: (s) => s.key,
    lookahead: 4 * largest,
    // Index tables of two windows (the chunk read and the one read ahead), not the default 65,536.
    maxIndexSamples: 8 * largest,
  });
  const loader = new DataLoader(source, {
    batchSize: BATCH,
    seed: 7,
    rank,
    worldSize,
    sampler: (epoch, seed) =>
      new ShardOrder({ shardSizes: source.shardSizes, seed, epoch, spans: worldSize }),
    collate: (keys: readonly string[]) => [...keys], // the loader reuses its array
  });
  const ids = new Uint32Array(loader.length * BATCH);
  let n = 0;
  let firstBatchMs = -1;
  let batches = 0;
  const tenth = Math.ceil(loader.length / 10);
  let memAtTenth = -1;
  let memLatePeak = 0;
  for await (const keys of loader) {
    if (firstBatchMs < 0) firstBatchMs = performance.now() - t0;
    for (const key of keys) ids[n++] = Number(key.slice(key.lastIndexOf('img') + 3));
    if (++batches % 64 === 0 || batches === tenth) {
      const mem = memory();
      memPeak = Math.max(memPeak, mem);
      if (batches === tenth) memAtTenth = mem;
      if (memAtTenth >= 0) memLatePeak = Math.max(memLatePeak, mem);
    }
  }
  memPeak = Math.max(memPeak, memory());
  const wallMs = performance.now() - t0;
  const { bytesRead, rangeRequests } = source.stats();
  source.close();
  return {
    report: {
      rank,
      worldSize,
      samples: n,
      wallMs,
      firstBatchMs,
      bytesRead,
      rangeRequests,
      memBefore,
      memPeak,
      memAtTenth,
      memLatePeak,
    },
    ids: ids.subarray(0, n),
  };
}

/** Count each id of `ids` in `seen` (one slot per sample of the data set). */
export function countIds(seen: Uint8Array, ids: Uint32Array): void {
  for (const id of ids) seen[id] = (seen[id] as number) + 1;
}

/** Samples of `seen` never read and read more than once. */
export function missingAndTwice(seen: Uint8Array): { missing: number; twice: number } {
  let missing = 0;
  let twice = 0;
  for (const c of seen) {
    if (c === 0) missing++;
    if (c > 1) twice++;
  }
  return { missing, twice };
}
