// The timeline of one training step, from the page's side (when training asked for the batch,
// when it got it) and the data server's (when each image request arrived): which requests went
// to the network between the ask and the batch's last request, and how far ahead of the batch
// their samples are in the epoch's order.
import { IndexPermutation } from '@medfusion/core';
import type { StepTimeline } from './types.js';

/** One image request as the data server saw it (absolute ms). */
export interface RequestEvent {
  index: number;
  arrivedAt: number;
}

function fmt(ms: number): string {
  return `${ms >= 0 ? '+' : ''}${ms.toFixed(0)} ms`;
}

/**
 * Lines describing `t` given the server's `requests` (cold epoch of the same row) for an
 * epoch of `samples` shuffled with `seed` (epoch 0).
 */
export function describeStep(
  label: string,
  t: StepTimeline,
  requests: RequestEvent[],
  samples: number,
  seed: number,
): string[] {
  const order = new IndexPermutation(samples, seed, 0);
  requests = requests.filter((r) => r.arrivedAt < t.epochEndedAt);
  const rel = (r: RequestEvent) => order.positionOf(r.index) - t.firstPosition;
  const mine = requests.filter((r) => {
    const d = rel(r);
    return d >= 0 && d < t.size;
  });
  const before = mine.filter((r) => r.arrivedAt < t.askedAt);
  const after = mine.filter((r) => r.arrivedAt >= t.askedAt);
  const lastOfBatch = Math.max(t.askedAt, ...mine.map((r) => r.arrivedAt));
  const window = requests
    .filter((r) => r.arrivedAt >= t.askedAt && r.arrivedAt <= lastOfBatch)
    .sort((a, b) => a.arrivedAt - b.arrivedAt);
  const ahead = window.filter((r) => rel(r) >= t.size);
  const lines = [
    `${label}: step ${t.step} of the cold epoch asked at 0 ms, got its batch at ${fmt(t.gotAt - t.askedAt)}`,
    `  its ${t.size} samples: ${before.length} requested before the ask, ${after.length} after ` +
      (after.length > 0
        ? `(server saw them from ${fmt(Math.min(...after.map((r) => r.arrivedAt)) - t.askedAt)} to ${fmt(lastOfBatch - t.askedAt)})`
        : ''),
    `  requests between the ask and the batch's last one: ${window.length}, of which ${ahead.length} for later samples` +
      (ahead.length > 0
        ? ` (${Math.min(...ahead.map(rel)) - t.size}..${Math.max(...ahead.map(rel)) - t.size} positions past the batch)`
        : ''),
    `  request order after the ask (position relative to the batch's first sample, * = this batch): ${window
      .slice(0, 48)
      .map((r) => `${rel(r)}${rel(r) >= 0 && rel(r) < t.size ? '*' : ''}`)
      .join(' ')}${window.length > 48 ? ' …' : ''}`,
    `  engine at the step's end: ${JSON.stringify(pickEngine(t.engine))}`,
  ];
  return lines;
}

function pickEngine(e: unknown): unknown {
  const s = e as { inFlight?: number; prefetch?: unknown; hitRate?: number; stallMs?: number };
  return { inFlight: s.inFlight, prefetch: s.prefetch, hitRate: s.hitRate };
}
