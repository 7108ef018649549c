// Hostile servers, item 3: every network wait has a timeout. A server that stalls before
// the headers, after them or mid-body ends every public entry point (RangeReader.read and
// stream, WebDatasetSource.open and get, ParquetSource.open, CsvImageDataset.open and get)
// in a RequestTimeoutError (REQUEST_TIMEOUT, naming the URL and the phase) at the configured
// timeout and not 1 ms before, without a signal from the caller. The sample server's
// /h/<mode>/ endpoints misbehave on purpose; the timeouts run on an injected clock
// (tests/setup/watchedClock.ts), moved once the server has stalled and the library waits.
import {
  CsvImageDataset,
  LoadError,
  ParquetSource,
  RangeReader,
  RequestTimeoutError,
  WebDatasetSource,
} from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { type Expired, expireTimeout, WatchedClock } from '../setup/watchedClock.js';
import { hostileUrl, report } from './harness.js';

const server = inject('sampleServer');

/**
 * The timeouts under test, on an injected clock: they fire only when the test moves the clock,
 * once the server has stalled and the library waits on that one timer, so a loaded machine
 * cannot fire one early (the headers of a body stall were once late enough to read as a headers
 * stall) nor late. Distinct, so the pending timer tells which phase the request is in.
 */
const HEADERS_MS = 300;
const IDLE_MS = 200;
const timeoutsOn = (clock: WatchedClock) =>
  ({ headersTimeoutMs: HEADERS_MS, idleTimeoutMs: IDLE_MS, clock }) as const;
const timeoutOf = { headers: HEADERS_MS, body: IDLE_MS } as const;
type Phase = keyof typeof timeoutOf;

let caseSeq = 0;
/** `/h/<mode>/<file>` with a query of its own, so the server's stall count is this case's. */
const caseUrl = (mode: string, file: string) => `${hostileUrl(mode, file)}?case-${++caseSeq}`;

/** Whether the sample server has reached the stall of `url` (tests/setup/sampleServer.ts). */
async function serverStalled(url: string): Promise<boolean> {
  const stalls: Record<string, number> = await (await fetch(`${server}/h-stalls`)).json();
  return (stalls[new URL(url).pathname + new URL(url).search] ?? 0) > 0;
}

/**
 * Run `work` against the stalled `url` and end it with its timeout: the clock moves once the
 * server has stalled and the library waits on a single timer (of the phase's timeout when
 * `phase` is given), and the work must still be pending 1 ms before that timer is due.
 */
async function timedOut(
  clock: WatchedClock,
  url: string,
  work: () => Promise<unknown>,
  phase?: Phase,
) {
  return expireTimeout(clock, work(), {
    what: url,
    reached: () => serverStalled(url),
    ...(phase === undefined ? {} : { ms: timeoutOf[phase] }),
  }) as Promise<Expired & { error: RequestTimeoutError }>;
}

/**
 * Whether this engine hands the page a response once its headers arrive, before any body byte
 * (asked of the platform with a fetch of the stall-body endpoint, none of our code). Chromium
 * does; Firefox ESR 153 holds the response back until body bytes come (a plain GET too), so
 * there a server that stalls after its headers is, as far as the page can tell, still in the
 * headers phase. Real time, as it is the browser's behaviour: 5 s is far beyond a loopback
 * answer's headers on a loaded machine, and only Firefox waits them out.
 */
async function headersBeforeBody(): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 5_000);
  try {
    // As RangeReader asks: a Range, no HTTP cache.
    await fetch(caseUrl('stall-body', 'shard.tar'), {
      headers: { Range: 'bytes=0-511' },
      cache: 'no-store',
      signal: abort.signal,
    });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
/** The phase a stall right after the headers is reported in, in this engine. */
const afterHeaders = (await headersBeforeBody()) ? 'body' : 'headers';

describe('a stalled server ends in REQUEST_TIMEOUT', () => {
  it('RangeReader: stall before headers, after headers, mid-body; stream mid-body', async (ctx) => {
    const figures: Record<string, number | string> = {};
    for (const [mode, phase] of [
      ['stall-headers', 'headers'],
      ['stall-body', afterHeaders],
      ['stall-mid', 'body'],
    ] as const) {
      const clock = new WatchedClock();
      const url = caseUrl(mode, 'shard.tar');
      const reader = new RangeReader({ url, ...timeoutsOn(clock) });
      const { error, reachMs } = await timedOut(clock, url, () => reader.read(0, 4608), phase);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(error).toMatchObject({
        code: 'REQUEST_TIMEOUT',
        url,
        phase,
        timeoutMs: timeoutOf[phase],
      });
      expect(error.message).toContain(url);
      figures[mode] = phase;
      figures[`${mode}ReachMs`] = Math.round(reachMs);
    }
    const clock = new WatchedClock();
    const url = caseUrl('stall-mid', 'shard.tar');
    const { error } = await timedOut(
      clock,
      url,
      async () => {
        const stream = await new RangeReader({ url, ...timeoutsOn(clock) }).stream();
        const reader = stream.getReader();
        while (!(await reader.read()).done);
      },
      'body',
    );
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', url, phase: 'body' });
    report(ctx.task, { scenario: 'hostile inputs', case: 'stalled server: RangeReader', figures });
  });

  it('WebDatasetSource.open and get, ParquetSource.open, CsvImageDataset.open and get', async (ctx) => {
    const figures: Record<string, number | string> = {};
    const cases: [
      string,
      string,
      (clock: WatchedClock, url: string) => Promise<unknown>,
      Phase?,
    ][] = [
      [
        'webdatasetManifest',
        caseUrl('stall-headers', 'manifest.json'),
        (clock, url) =>
          WebDatasetSource.open({
            manifestUrl: url,
            ...timeoutsOn(clock),
          }),
        'headers',
      ],
      [
        'webdatasetIndexStream',
        caseUrl('stall-mid', 'shard.tar'),
        (clock, url) =>
          WebDatasetSource.open({ urls: [url], sidecar: false, ...timeoutsOn(clock) }),
        'body',
      ],
      [
        'webdatasetGet',
        caseUrl('stall-body', 'shard.tar'),
        async (clock, url) => {
          // The index comes from a server that answers: on the injected clock its request
          // cannot time out however late its answer comes.
          const source = await WebDatasetSource.open({
            urls: [url],
            sidecar: () => hostileUrl('ok', 'shard.tar.idx.json'),
            ...timeoutsOn(clock),
          });
          await source.get(3);
        },
        afterHeaders,
      ],
      [
        'parquetOpen',
        caseUrl('stall-body', 'shard.tar'),
        (clock, url) => ParquetSource.open({ url, columns: {}, ...timeoutsOn(clock) }),
      ],
      [
        'csvOpen',
        caseUrl('stall-headers', 'manifest.json'),
        (clock, url) =>
          CsvImageDataset.open({
            csvUrl: url,
            imageBaseUrl: hostileUrl('ok', ''),
            ...timeoutsOn(clock),
          }),
        'headers',
      ],
    ];
    for (const [name, url, work, phase] of cases) {
      const clock = new WatchedClock();
      const { error, reachMs } = await timedOut(clock, url, () => work(clock, url), phase);
      expect(error, name).toBeInstanceOf(RequestTimeoutError);
      expect(error, name).toMatchObject({ code: 'REQUEST_TIMEOUT', url });
      if (phase) expect(error, name).toMatchObject({ phase, timeoutMs: timeoutOf[phase] });
      figures[name] = error.phase;
      figures[`${name}ReachMs`] = Math.round(reachMs);
    }
    const clock = new WatchedClock();
    // The image's URL is the CSV row's name under imageBaseUrl: the row carries the case query.
    const image = `shard.tar?case-${++caseSeq}`;
    const url = hostileUrl('stall-mid', image);
    const csv = URL.createObjectURL(new Blob([`image,label\n${image},0\n`], { type: 'text/csv' }));
    const ds = await CsvImageDataset.open({
      csvUrl: csv,
      imageBaseUrl: hostileUrl('stall-mid', ''),
      ...timeoutsOn(clock),
    });
    const { error } = await timedOut(clock, url, () => ds.get(0), 'body');
    URL.revokeObjectURL(csv);
    expect(error).toBeInstanceOf(LoadError);
    expect((error as Error).cause).toMatchObject({ code: 'REQUEST_TIMEOUT', url, phase: 'body' });
    figures.csvGet = 'body';
    report(ctx.task, { scenario: 'hostile inputs', case: 'stalled server: sources', figures });
  });

  it('the default is 30 s for the headers and for a body stall (on an injected clock)', async () => {
    for (const [mode, phase] of [
      ['stall-headers', 'headers'],
      ['stall-body', afterHeaders],
    ] as const) {
      const clock = new WatchedClock();
      const url = caseUrl(mode, 'shard.tar');
      const reader = new RangeReader({ url, clock });
      // No wait of real time for the headers to come in: the clock moves once the server has
      // stalled and the read waits on a single timer of 30 s, and not before 30 s of it.
      const { error, ms } = await expireTimeout(clock, reader.read(0, 512), {
        what: url,
        reached: () => serverStalled(url),
        ms: 30_000,
      });
      expect(ms).toBe(30_000);
      expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', phase, timeoutMs: 30_000 });
    }
  });

  it('rejects bad timeout options naming them', () => {
    expect(
      () => new RangeReader({ url: hostileUrl('ok', 'shard.tar'), headersTimeoutMs: 0 }),
    ).toThrow(/headersTimeoutMs must be a positive number of milliseconds, got 0/);
    expect(
      () => new RangeReader({ url: hostileUrl('ok', 'shard.tar'), idleTimeoutMs: Number.NaN }),
    ).toThrow(/idleTimeoutMs must be a positive number of milliseconds, got NaN/);
  });
});
