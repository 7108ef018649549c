// Hostile servers, item 4: abandoned loads do not starve the origin. When a caller's
// signal or the engine's loadTimeoutMs gives up on a load stalled on a server, the load's
// request is aborted and its OriginLimiter slot freed (the default limiter allows 6 per
// origin), so after 8 abandoned loads a normal read of the same origin completes at once,
// long before the 30 s request timeouts could have freed anything.
import {
  defaultOriginLimiter,
  ParquetSource,
  PrefetchDataset,
  RangeReader,
  WebDatasetSource,
} from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { bounded, hostileUrl, report } from './harness.js';

const server = inject('sampleServer');
const ABANDONED = 8;
/** A healthy read after the abandoned ones must finish within this (timeouts are 30 s). */
const BOUND_MS = 10_000;

async function healthyRead() {
  const reader = new RangeReader({ url: hostileUrl('ok', 'shard.tar') });
  return bounded('a read after the abandoned loads', BOUND_MS, () => reader.read(512, 4608));
}

async function stalledShards() {
  return WebDatasetSource.open({
    urls: [hostileUrl('stall-headers', 'shard.tar')],
    sidecar: () => hostileUrl('ok', 'shard.tar.idx.json'),
  });
}

describe('giving up on a stalled load frees its request and slot', () => {
  it('WebDatasetSource: 8 gets abandoned through their signal', async (ctx) => {
    const source = await stalledShards();
    const errors = await Promise.all(
      Array.from({ length: ABANDONED }, (_, i) =>
        source.get(i, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e),
      ),
    );
    expect(errors.every((e) => (e as Error).name === 'TimeoutError')).toBe(true);
    const { value, ms } = await healthyRead();
    expect(value.length).toBe(4096);
    expect(defaultOriginLimiter.active(server)).toBe(0);
    source.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'abandoned stalled loads (caller signal)',
      figures: { abandoned: ABANDONED, nextReadMs: Math.round(ms) },
    });
  });

  it('WebDatasetSource under PrefetchDataset: 8 loads given up by loadTimeoutMs', async (ctx) => {
    const source = await stalledShards();
    const ds = new PrefetchDataset(source, { numWorkers: ABANDONED, loadTimeoutMs: 150 });
    const errors = await Promise.all(
      Array.from({ length: ABANDONED }, (_, i) =>
        Promise.resolve(ds.get(i)).catch((e: unknown) => e),
      ),
    );
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(
      Array(ABANDONED).fill('LOAD_TIMEOUT'),
    );
    const { ms } = await healthyRead();
    await ds.close();
    source.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'abandoned stalled loads (loadTimeoutMs)',
      figures: { abandoned: ABANDONED, nextReadMs: Math.round(ms) },
    });
  });

  it('ParquetSource: row-group reads nobody waits for any more are aborted', async (ctx) => {
    let opened = false;
    // The footer comes from a healthy server; every row-group read after open() stalls.
    const stallAfterOpen: typeof fetch = (input, init) =>
      fetch(opened ? String(input).replace('/h/ok/', '/h/stall-headers/') : input, init);
    const table = await ParquetSource.open({
      url: hostileUrl('ok', 'table.parquet'),
      columns: { label: 'label' },
      fetch: stallAfterOpen,
    });
    opened = true;
    expect(table.rowGroupSizes).toEqual([4, 4, 4, 4]);
    const errors = await Promise.all(
      Array.from({ length: ABANDONED }, (_, i) =>
        table.get(i * 2, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e),
      ),
    );
    expect(errors.every((e) => (e as Error).name === 'TimeoutError')).toBe(true);
    const { ms } = await healthyRead();
    expect(defaultOriginLimiter.active(server)).toBe(0);
    table.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'abandoned stalled row-group reads',
      figures: { abandoned: ABANDONED, nextReadMs: Math.round(ms) },
    });
  });
});
