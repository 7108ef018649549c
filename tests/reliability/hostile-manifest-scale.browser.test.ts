// Hostile data, item 7: manifests at scale. A WebDataset manifest of 10^6 shards
// opens without blocking the page longer than `fetch().json()` of the same manifest
// does (the browser's own way, measured in the same test), without a reader or
// parsed URL per shard (heap measured with performance.memory, precise, after a forced gc);
// it sends nothing but the manifest request when every shard declares `samples`.
// A manifest of 2,000 missing shards (indices must be built) rejects on the first
// 404 within a bound, and nothing is requested after open() rejected (counted at
// the sample server after a pause).
import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { server as runner } from 'vitest/browser';
import { bounded, HANG_MS, report } from './harness.js';

const server = inject('sampleServer');
const MiB = 1024 * 1024;

interface Seen {
  path: string;
}
/** Requests the sample server received under `/wds/<tag>/`. */
const requestsOf = async (tag: string): Promise<number> =>
  ((await (await fetch(`${server}/seen`)).json()) as Seen[]).filter((s) =>
    s.path.startsWith(`/wds/${tag}/`),
  ).length;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Whether this engine can measure the heap: Chromium with --enable-precise-memory-info and
 * --expose-gc (vite.config.ts, reliability-web). Firefox has neither performance.memory nor a
 * gc() for pages: there the heap bound is not checked, and the test's name says so.
 */
const heapMeasurable =
  typeof (globalThis as { gc?: () => void }).gc === 'function' && 'memory' in performance;
const heapNote = heapMeasurable
  ? 'heap'
  : `heap [not measured in ${runner.browser}: no performance.memory or gc()]`;

/** JS heap in use after a full collection, where {@link heapMeasurable}. */
async function heapUsed(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --js-flags=--expose-gc (vite.config.ts, reliability-web)');
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(0);
  }
  return (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize;
}

/** The longest time the page went without running a timer, while `work` runs. */
async function longestBlock<T>(work: () => Promise<T>): Promise<{ value: T; blockMs: number }> {
  let last = performance.now();
  let worst = 0;
  let running = true;
  const ticker = (async () => {
    while (running) {
      // 1 ms, not 0: WebKit runs zero-delay timers ahead of network delivery, and a ticker on
      // setTimeout(0) kept the manifest's body from ever arriving (the test timed out there).
      await sleep(1);
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }
  })();
  try {
    const value = await work();
    // The stretch in which work() finished counts too (it was missed before 2026-12-02).
    worst = Math.max(worst, performance.now() - last);
    return { value, blockMs: worst };
  } finally {
    running = false;
    await ticker;
  }
}

describe('hostile manifests: scale', () => {
  // 180 s, not the default 60: WebKit beside three engines' suites and two CPU hogs took 51 s
  // for what is 5 s on an idle machine (its bounds are relative to the same run's fetch().json()).
  it(`a manifest of 10^6 shards opens lazily: one request, bounded time, ${heapNote} and page block`, {
    timeout: 180_000,
  }, async (ctx) => {
    const tag = `million-${Date.now()}`;
    const manifestUrl = `${server}/wds/${tag}/manifest-1000000.json?samples=1`;
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => {
      sent.push(String(input));
      return fetch(input, init);
    };
    // The same manifest loaded the browser's own way first (fetch, then Response.json()):
    // what the network and the parse cost (and a warm server), and the longest block of it,
    // the floor of any open() on the page. Taken again after open() (the slower of the two
    // counts) so a busy machine slows both sides.
    const loadJson = () =>
      longestBlock(
        async () =>
          ((await (await fetch(manifestUrl)).json()) as { shards: unknown[] }).shards.length,
      );
    const raw = performance.now();
    const first = await loadJson();
    const rawMs = performance.now() - raw;
    expect(first.value).toBe(1_000_000);
    const before = heapMeasurable ? await heapUsed() : 0;
    // Against a hang, relative to the same manifest's fetch().json() just measured (open()
    // takes about as long; 10 s floor): a fixed 10 s was near what a busy machine takes.
    const openBound = Math.max(10_000, 10 * rawMs);
    const { value: opened, ms } = await bounded('open() of 10^6 shards', openBound, () =>
      longestBlock(() => WebDatasetSource.open({ manifestUrl, fetch: recording })),
    );
    const source = opened.value;
    const retained = heapMeasurable ? (await heapUsed()) - before : Number.NaN;
    expect(source.length).toBe(1_000_000);
    expect(source.shardSizes.length).toBe(1_000_000);
    expect(sent).toEqual([manifestUrl]);
    if (heapMeasurable) expect(retained).toBeLessThan(48 * MiB);
    // No per-shard work up front: open() blocks the page about as long as loading the JSON
    // does, where a reader and a parsed URL per shard blocked it 14 s when this was filed. The
    // bound is 3x: under a full suite on 2 cores one run read 1.32x (3.8 s against 2.9 s).
    // The yields between entry chunks lower it further (0.37-0.61x of the floor on a quiet
    // machine, 0.67-1.27x without them), too narrow a margin to assert: reported instead.
    const floorMs = Math.max(first.blockMs, (await loadJson()).blockMs);
    expect(opened.blockMs).toBeLessThan(3 * floorMs);

    // The last shard is resolved and read only when touched: its own requests, its own URL.
    await expect(source.get(999_999)).rejects.toMatchObject({ code: 'HTTP_ERROR', status: 404 });
    await expect(source.get(999_999)).rejects.toThrow(/shard-0999999\.tar/);
    expect(sent.slice(1).every((u) => u.includes('/shard-0999999.tar'))).toBe(true);
    expect(source.stats().rangeRequests).toBeGreaterThan(0);
    source.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'manifest of 10^6 shards (samples declared)',
      figures: {
        openMs: Math.round(ms),
        fetchJsonMs: Math.round(rawMs),
        longestBlockMs: Math.round(opened.blockMs),
        responseJsonBlockMs: Math.round(floorMs),
        retainedMiB: heapMeasurable ? Math.round((retained / MiB) * 10) / 10 : 'n/a',
        requests: 1,
      },
    });
  });

  it('2,000 missing shards: open() rejects on the first 404 and sends nothing after', async (ctx) => {
    const tag = `missing-${Date.now()}`;
    const manifestUrl = `${server}/wds/${tag}/manifest-2000.json`;
    let rejected = false;
    let fetchesAfterReject = 0;
    let fetches = 0;
    const watching: typeof fetch = (input, init) => {
      fetches++;
      if (rejected) fetchesAfterReject++;
      return fetch(input, init);
    };
    const { value: error, ms } = await bounded('open() of 2,000 missing shards', HANG_MS, () =>
      WebDatasetSource.open({ manifestUrl, fetch: watching }).then(
        () => undefined,
        (e: unknown) => {
          rejected = true;
          return e;
        },
      ),
    );
    expect(error).toMatchObject({ code: 'HTTP_ERROR', status: 404 });
    expect(String((error as Error).message)).toMatch(/\/wds\/[\w-]+\/shard-\d{7}\.tar/);
    // Requests aborted in flight may still reach the server a while later (seconds when the
    // machine is loaded: 500 ms once saw 5 become 8 in CI): wait until the count holds still
    // for 500 ms, then none may have come beyond what the page sent before open() rejected.
    let settled = await requestsOf(tag);
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      await sleep(500);
      const now = await requestsOf(tag);
      if (now === settled) break;
      settled = now;
    }
    expect(fetchesAfterReject).toBe(0);
    expect(settled).toBeLessThanOrEqual(fetches);
    expect(settled).toBeLessThan(40); // the manifest, then a few shards' sidecar + stream
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'manifest of 2,000 missing shards',
      figures: { rejectMs: Math.round(ms), requests: settled, fetchesAfterReject: 0 },
    });
  });

  it('aborting open() cancels every index load it started', async () => {
    const tag = `abort-${Date.now()}`;
    const manifestUrl = `${server}/wds/${tag}/manifest-2000.json`;
    const ac = new AbortController();
    let first = true;
    // Every shard request answers 100 ms late; the caller gives up 50 ms after the first.
    const slow: typeof fetch = (input, init) => {
      if (String(input).includes('/manifest-')) return fetch(input, init);
      if (first) {
        first = false;
        setTimeout(() => ac.abort(new Error('user gave up')), 50);
      }
      const signal = init?.signal;
      return new Promise<Response>((resolve, reject) => {
        const timer = setTimeout(() => resolve(fetch(input, init)), 100);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    };
    const { value: error } = await bounded('aborted open()', HANG_MS, () =>
      WebDatasetSource.open({ manifestUrl, fetch: slow, signal: ac.signal }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(String(error)).toMatch(/user gave up/);
    await sleep(200);
    const settled = await requestsOf(tag);
    await sleep(500);
    expect(await requestsOf(tag)).toBe(settled);
    expect(settled).toBeLessThan(40);
  });
});
