// One rank of the "Four ranks, one epoch" panel: a Web Worker that opens the
// demo's shards with its own WebDatasetSource (its own requests, as a machine of
// its own would), reads its part of one epoch through a DataLoader with `rank`
// and `worldSize`, and reports each batch's indices and the bytes it fetched.
import { DataLoader, ShardOrder, WebDatasetSource } from '@medfusion/web';

/** What the page asks a rank to read. */
export interface RankJob {
  /** URL of the shards' manifest. */
  manifestUrl: string;
  /** This reader's number, in `[0, worldSize)`. */
  rank: number;
  /** Readers sharing the epoch. */
  worldSize: number;
  /** Seed of the shard-aware order (the same on every rank). */
  seed: number;
  /** Spans of the order (a multiple of `worldSize`: each rank reads whole spans). */
  spans: number;
  /** Samples per batch. */
  batchSize: number;
}

/** What a rank reports: its share when it starts, each batch, its end or its error. */
export type RankEvent =
  | { type: 'start'; rank: number; share: number; length: number }
  | { type: 'batch'; rank: number; indices: number[]; bytes: number; requests: number }
  | { type: 'done'; rank: number; bytes: number; requests: number }
  | { type: 'error'; rank: number; message: string };

const post = (e: RankEvent) => postMessage(e);

self.onmessage = async (event: MessageEvent<RankJob>) => {
  const job = event.data;
  let source: WebDatasetSource | undefined;
  try {
    source = await WebDatasetSource.open({ manifestUrl: job.manifestUrl });
    const shardSizes = source.shardSizes;
    const loader = new DataLoader(source, {
      batchSize: job.batchSize,
      seed: job.seed,
      rank: job.rank,
      worldSize: job.worldSize,
      sampler: (epoch, seed) => new ShardOrder({ shardSizes, seed, epoch, spans: job.spans }),
      // the page shows which samples arrived, not their pixels
      collate: (_samples, ctx) => Array.from(ctx.indices),
    });
    post({
      type: 'start',
      rank: job.rank,
      share: Math.ceil(source.length / job.worldSize), // evenRanks 'pad', the default
      length: source.length,
    });
    for await (const indices of loader) {
      const { bytesRead, rangeRequests } = source.stats();
      post({ type: 'batch', rank: job.rank, indices, bytes: bytesRead, requests: rangeRequests });
    }
    const { bytesRead, rangeRequests } = source.stats();
    post({ type: 'done', rank: job.rank, bytes: bytesRead, requests: rangeRequests });
  } catch (error) {
    post({ type: 'error', rank: job.rank, message: (error as Error).message ?? String(error) });
  } finally {
    source?.close();
  }
};
