// One rank of the epoch-1M row (bench/pack/epoch1m.ts), run as its own Node process:
// `tsx --conditions=@medfusion/source bench/pack/epochRank.ts <manifest url> <rank> <world> <ids out>`.
// Opens the data set with WebDatasetSource, reads its part of one shuffled epoch (batch 64;
// ShardOrder with one span per rank (spans = worldSize), so a rank reads its span alone,
// windows of 4 shards; the source's lookahead one whole window, so each shard of a window
// is wanted whole by one chunk and read once, in one request, its sha256 checked), and
// prints one JSON line: the samples it read,
// the wall time, the time from open() to the first batch, the bytes its source fetched,
// and its resident size before open(), at its highest, once a tenth of its batches are
// read and at its highest after that. The sample ids (the number in
// each key, the input file's index) go to <ids out> as a Uint32Array.
import { writeFileSync } from 'node:fs';
import { DataLoader, ShardOrder } from '@medfusion/core';
import { WebDatasetSource } from '@medfusion/web';

const [manifestUrl, rankText, worldText, idsOut] = process.argv.slice(2);
const rank = Number(rankText);
const worldSize = Number(worldText);

/** Samples per shard, as the manifest lists them. */
async function manifestShardSamples(url: string): Promise<number[]> {
  const manifest = (await (await fetch(url)).json()) as { shards: { samples: number }[] };
  return manifest.shards.map((s) => s.samples);
}

async function main(): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const t0 = performance.now();
  const largest = Math.max(...(await manifestShardSamples(manifestUrl as string)));
  const source = await WebDatasetSource.open({
    manifestUrl: manifestUrl as string,
    transform: (s) => s.key,
    lookahead: 4 * largest,
    // Index tables of two windows (the chunk read and the one read ahead), not the default 65,536.
    maxIndexSamples: 8 * largest,
  });
  const loader = new DataLoader(source, {
    batchSize: 64,
    seed: 7,
    rank,
    worldSize,
    sampler: (epoch, seed) =>
      new ShardOrder({ shardSizes: source.shardSizes, seed, epoch, spans: worldSize }),
    collate: (keys: readonly string[]) => [...keys], // the loader reuses its array
  });
  const ids = new Uint32Array(loader.length * 64);
  let n = 0;
  let firstBatchMs = -1;
  let batches = 0;
  // Resident size once a tenth of the epoch is read (code compiled, buffers and tables at
  // their budgets), and its highest after that: what grows with the samples read.
  const tenth = Math.ceil(loader.length / 10);
  let rssAtTenth = -1;
  let rssLatePeak = 0;
  for await (const keys of loader) {
    if (firstBatchMs < 0) firstBatchMs = performance.now() - t0;
    for (const key of keys) ids[n++] = Number(key.slice(key.lastIndexOf('img') + 3));
    if (++batches % 64 === 0 || batches === tenth) {
      const rss = process.memoryUsage().rss;
      rssPeak = Math.max(rssPeak, rss);
      if (batches === tenth) rssAtTenth = rss;
      if (rssAtTenth >= 0) rssLatePeak = Math.max(rssLatePeak, rss);
    }
  }
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  const wallMs = performance.now() - t0;
  const { bytesRead, rangeRequests } = source.stats();
  source.close();
  writeFileSync(idsOut as string, ids.subarray(0, n));
  console.log(
    JSON.stringify({
      rank,
      samples: n,
      wallMs,
      firstBatchMs,
      bytesRead,
      rangeRequests,
      rssBefore,
      rssPeak,
      rssAtTenth,
      rssLatePeak,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
