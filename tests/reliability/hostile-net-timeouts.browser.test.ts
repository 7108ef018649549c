// Hostile servers, item 3: every network wait has a timeout. A server that stalls before
// the headers, after them or mid-body ends every public entry point (RangeReader.read and
// stream, WebDatasetSource.open and get, ParquetSource.open, CsvImageDataset.open and get)
// in a RequestTimeoutError (REQUEST_TIMEOUT, naming the URL) within the bound, without a
// signal from the caller. The sample server's /h/<mode>/ endpoints misbehave on purpose.
import {
  CsvImageDataset,
  LoadError,
  ManualClock,
  ParquetSource,
  RangeReader,
  RequestTimeoutError,
  WebDatasetSource,
} from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { failsWithin, hostileUrl, report } from './harness.js';

const fast = { headersTimeoutMs: 300, idleTimeoutMs: 300 };
/**
 * For a stall in the body: the idle timeout under test is 300 ms, and the headers, which do
 * come, get 3 s. With 300 ms for them too, a loaded machine (CI, three engines) once sent the
 * headers later than that and the body stall was reported as a headers one.
 */
const bodyStall = { headersTimeoutMs: 3_000, idleTimeoutMs: 300 };
/**
 * Timeouts of 300 ms (plus the headers' 3 s for a body stall): every case must end within these,
 * far below the 30 s defaults they are told apart from. 2 s left too little room for a machine
 * running three engines' suites at once.
 */
const BOUND_MS = 5_000;
const BODY_BOUND_MS = 8_000;

const timedOut = (label: string, work: () => Promise<unknown>, bound = BOUND_MS) =>
  failsWithin<RequestTimeoutError>(label, bound, work);

/**
 * Whether this engine hands the page a response once its headers arrive, before any body byte
 * (asked of the platform with a fetch of the stall-body endpoint, none of our code). Chromium
 * does; Firefox ESR 153 holds the response back until body bytes come (a plain GET too), so
 * there a server that stalls after its headers is, as far as the page can tell, still in the
 * headers phase.
 */
async function headersBeforeBody(): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 5_000);
  try {
    // As RangeReader asks: a Range, no HTTP cache.
    await fetch(hostileUrl('stall-body', 'shard.tar'), {
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
    const figures: Record<string, number> = {};
    for (const [mode, phase] of [
      ['stall-headers', 'headers'],
      ['stall-body', afterHeaders],
      ['stall-mid', 'body'],
    ] as const) {
      const url = hostileUrl(mode, 'shard.tar');
      const inBody = phase === 'body';
      const reader = new RangeReader({ url, ...(inBody ? bodyStall : fast) });
      const { error, ms } = await timedOut(
        `read ${mode}`,
        () => reader.read(0, 4608),
        inBody ? BODY_BOUND_MS : BOUND_MS,
      );
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', url, phase, timeoutMs: 300 });
      expect(error.message).toContain(url);
      figures[`${mode}Ms`] = Math.round(ms);
    }
    const url = hostileUrl('stall-mid', 'shard.tar');
    const { error, ms } = await timedOut(
      'stream stall-mid',
      async () => {
        const stream = await new RangeReader({ url, ...bodyStall }).stream();
        const reader = stream.getReader();
        while (!(await reader.read()).done);
      },
      BODY_BOUND_MS,
    );
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', url, phase: 'body' });
    figures.streamMidMs = Math.round(ms);
    report(ctx.task, { scenario: 'hostile inputs', case: 'stalled server: RangeReader', figures });
  });

  it('WebDatasetSource.open and get, ParquetSource.open, CsvImageDataset.open and get', async (ctx) => {
    const figures: Record<string, number> = {};
    const cases: [string, () => Promise<unknown>, string, number?][] = [
      [
        'webdatasetManifest',
        () =>
          WebDatasetSource.open({
            manifestUrl: hostileUrl('stall-headers', 'manifest.json'),
            ...fast,
          }),
        hostileUrl('stall-headers', 'manifest.json'),
      ],
      [
        'webdatasetIndexStream',
        () =>
          WebDatasetSource.open({
            urls: [hostileUrl('stall-mid', 'shard.tar')],
            sidecar: false,
            ...bodyStall,
          }),
        hostileUrl('stall-mid', 'shard.tar'),
        BODY_BOUND_MS,
      ],
      [
        'webdatasetGet',
        async () => {
          const source = await WebDatasetSource.open({
            urls: [hostileUrl('stall-body', 'shard.tar')],
            sidecar: () => hostileUrl('ok', 'shard.tar.idx.json'),
            // The index comes from a server that answers: it gets 3 s for its headers. With
            // 300 ms, CI under three engines' load once timed out on the index, not the shard.
            ...bodyStall,
          });
          await source.get(3);
        },
        hostileUrl('stall-body', 'shard.tar'),
        BODY_BOUND_MS,
      ],
      [
        'parquetOpen',
        () =>
          ParquetSource.open({ url: hostileUrl('stall-body', 'shard.tar'), columns: {}, ...fast }),
        hostileUrl('stall-body', 'shard.tar'),
      ],
      [
        'csvOpen',
        () =>
          CsvImageDataset.open({
            csvUrl: hostileUrl('stall-headers', 'manifest.json'),
            imageBaseUrl: hostileUrl('ok', ''),
            ...fast,
          }),
        hostileUrl('stall-headers', 'manifest.json'),
      ],
    ];
    for (const [name, work, url, bound] of cases) {
      const { error, ms } = await timedOut(name, work, bound);
      expect(error, name).toBeInstanceOf(RequestTimeoutError);
      expect(error, name).toMatchObject({ code: 'REQUEST_TIMEOUT', url });
      figures[`${name}Ms`] = Math.round(ms);
    }
    const csv = URL.createObjectURL(new Blob(['image,label\nshard.tar,0\n'], { type: 'text/csv' }));
    const ds = await CsvImageDataset.open({
      csvUrl: csv,
      imageBaseUrl: hostileUrl('stall-mid', ''),
      ...bodyStall,
    });
    const { error, ms } = await timedOut('csvGet', () => ds.get(0), BODY_BOUND_MS);
    expect(error).toBeInstanceOf(LoadError);
    expect((error as Error).cause).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      url: hostileUrl('stall-mid', 'shard.tar'),
      phase: 'body',
    });
    figures.csvGetMs = Math.round(ms);
    report(ctx.task, { scenario: 'hostile inputs', case: 'stalled server: sources', figures });
  });

  it('the default is 30 s for the headers and for a body stall (on an injected clock)', async () => {
    const clock = new ManualClock();
    for (const [mode, phase] of [
      ['stall-headers', 'headers'],
      ['stall-body', afterHeaders],
    ] as const) {
      const reader = new RangeReader({ url: hostileUrl(mode, 'shard.tar'), clock });
      const read = reader.read(0, 512);
      read.catch(() => {});
      // Real time for the request to go out and the headers to come in (the timeouts run on the
      // injected clock, so waiting longer changes nothing else): 200 ms was too short once in CI
      // under load, and the body stall was reported as a headers one.
      await new Promise((r) => setTimeout(r, 1500));
      await clock.advance(29_999);
      let settled = false;
      read.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((r) => setTimeout(r, 50));
      expect(settled, `${mode} before 30 s`).toBe(false);
      await clock.advance(1);
      await expect(read).rejects.toMatchObject({
        code: 'REQUEST_TIMEOUT',
        phase,
        timeoutMs: 30_000,
      });
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
