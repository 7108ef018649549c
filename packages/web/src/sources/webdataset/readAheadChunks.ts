import type { EpochPlan, ShardLayout } from '@medfusion/core';

// How the read-ahead shapes a chunk of the plan before reading it (web-internal):
// where the chunk ends, and which soon-needed samples it takes along.

/**
 * Where the chunk `[from, to)` should end: before its last positions when they
 * are all in shards that no earlier position of the chunk reads (the start of
 * the next shuffle window of a shard-aware order, or the next shard of a
 * sequential one), so the next chunk starts there and reads that window's
 * shards whole (with {@link fillSpans}) instead of a few scattered samples of
 * each. The cut keeps at least half the chunk.
 */
export function windowCut(
  plan: EpochPlan,
  layout: ShardLayout,
  lookahead: number,
  from: number,
  to: number,
): number {
  const keep = from + Math.ceil(lookahead / 2);
  if (to - from < 2 || to >= plan.length) return to;
  const first = new Map<number, number>();
  for (let p = from; p < to; p++) {
    const s = layout.shardOf(plan.indexAt(p));
    if (!first.has(s)) first.set(s, p);
  }
  // The smallest q such that every position in [q, to) reads a shard first read at or after q.
  let cut = to;
  let minFirst = Number.POSITIVE_INFINITY;
  for (let q = to - 1; q >= keep; q--) {
    minFirst = Math.min(minFirst, first.get(layout.shardOf(plan.indexAt(q))) as number);
    if (minFirst >= q) cut = q;
  }
  return cut;
}

/**
 * Move into the chunk (`list`, `positions`) the `upcoming` samples that lie,
 * in archive order, between the first and the last sample the chunk reads in
 * their shard. A shard-aware shuffle reads a window's shards in random order,
 * so a chunk's samples are scattered over each shard: read alone, the gaps
 * between them split the merged reads into many, the samples in those gaps come
 * back later as small reads of their own, and a chunk that reaches a few
 * positions into the next window reads each of them alone. Read with the chunk,
 * the gaps close and each shard of a window is read in about one request. The
 * memory bound stays the plan horizon (`4 × lookahead` positions), as for
 * bytes a merged read covers anyway; nothing past the chunk's span in a shard
 * is added, so a sequential plan reads as before.
 */
export function fillSpans(
  layout: ShardLayout,
  list: number[],
  positions: number[],
  upcoming: Map<number, number>,
  isPending: (index: number) => boolean,
): void {
  if (list.length === 0 || upcoming.size === 0) return;
  const spans = new Map<number, { lo: number; hi: number }>();
  for (const idx of list) {
    const s = layout.shardOf(idx);
    const local = layout.localIndex(idx);
    const span = spans.get(s);
    if (!span) spans.set(s, { lo: local, hi: local });
    else {
      if (local < span.lo) span.lo = local;
      if (local > span.hi) span.hi = local;
    }
  }
  for (const [idx, pos] of upcoming) {
    if (isPending(idx)) continue;
    const span = spans.get(layout.shardOf(idx));
    if (!span) continue;
    const local = layout.localIndex(idx);
    if (local < span.lo || local > span.hi) continue;
    list.push(idx);
    positions.push(pos);
    upcoming.delete(idx);
  }
}
