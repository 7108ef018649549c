// Hostile servers, item 4: abandoned loads do not starve the origin. When a caller's
// signal or the engine's loadTimeoutMs gives up on a load stalled on a server, the load's
// request is aborted and its OriginLimiter slot freed (the default limiter allows 6 per
// origin), so after 8 abandoned loads a normal read of the same origin completes. The
// stalled sources' own request timeouts run on a clock that never moves, so nothing but
// giving up can free a slot: the healthy read completing is the proof, whatever the
// machine's load (it once had to beat the 30 s timeouts in real time).
import {
  defaultOriginLimiter,
  ManualClock,
  ParquetSource,
  PrefetchDataset,
  RangeReader,
  WebDatasetSource,
} from '@medfusion/web';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { turns, until, WatchedClock } from '../setup/watchedClock.js';
import { bounded, hostileUrl, report } from './harness.js';

const server = inject('sampleServer');
const ABANDONED = 8;
/**
 * Only against a hang: a slot never freed keeps the healthy read waiting for ever (the stalled
 * requests' timeouts never fire). Milliseconds on an idle machine.
 */
const BOUND_MS = 30_000;
/** The stalled sources' request timeouts: a clock nobody moves. */
const frozen = () => ({ clock: new ManualClock() });

async function healthyRead() {
  const reader = new RangeReader({ url: hostileUrl('ok', 'shard.tar') });
  return bounded('a read after the abandoned loads', BOUND_MS, () => reader.read(512, 4608));
}

async function stalledShards() {
  return WebDatasetSource.open({
    urls: [hostileUrl('stall-headers', 'shard.tar')],
    sidecar: () => hostileUrl('ok', 'shard.tar.idx.json'),
    ...frozen(),
  });
}

describe('giving up on a stalled load frees its request and slot', () => {
  it('WebDatasetSource: 8 gets abandoned through their signal', async (ctx) => {
    const source = await stalledShards();
    onTestFinished(() => source.close()); // also when a check fails: its stalls hold slots
    const errors = await Promise.all(
      Array.from({ length: ABANDONED }, (_, i) =>
        source.get(i, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e),
      ),
    );
    expect(errors.every((e) => (e as Error).name === 'TimeoutError')).toBe(true);
    const { value, ms } = await healthyRead();
    expect(value.length).toBe(4096);
    expect(defaultOriginLimiter.active(server)).toBe(0);
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'abandoned stalled loads (caller signal)',
      figures: { abandoned: ABANDONED, nextReadMs: Math.round(ms) },
    });
  });

  it('WebDatasetSource under PrefetchDataset: 8 loads given up by loadTimeoutMs', async (ctx) => {
    const source = await stalledShards();
    // The load timeout on an injected clock too: moved once the 8 loads wait on the stalled
    // server, to 1 ms before it (nothing gives up) and then to it (every load gives up).
    const clock = new WatchedClock();
    const ds = new PrefetchDataset(source, { numWorkers: ABANDONED, loadTimeoutMs: 150, clock });
    let ms = 0;
    try {
      let settled = 0;
      const outcomes = Array.from({ length: ABANDONED }, (_, i) =>
        Promise.resolve(ds.get(i))
          .catch((e: unknown) => e)
          .finally(() => settled++),
      );
      // Each load, and each caller's wait for it, is bounded by its own 150 ms timer.
      await until('the 8 loads waiting on the stalled server', () => {
        const timers = clock.pendingTimers();
        return (
          timers.length >= ABANDONED &&
          timers.every((t) => t.ms === 150) &&
          defaultOriginLimiter.active(server) > 0
        );
      });
      await clock.advance(149);
      await turns();
      expect(settled, 'loads given up before loadTimeoutMs').toBe(0);
      await clock.advance(1);
      const errors = await Promise.all(outcomes);
      expect(errors.map((e) => (e as { code?: string }).code)).toEqual(
        Array(ABANDONED).fill('LOAD_TIMEOUT'),
      );
      ({ ms } = await healthyRead());
    } finally {
      await ds.close(); // aborts what is still loading, should a check above have failed
      source.close();
    }
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
      ...frozen(),
    });
    onTestFinished(() => table.close());
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
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'abandoned stalled row-group reads',
      figures: { abandoned: ABANDONED, nextReadMs: Math.round(ms) },
    });
  });
});
