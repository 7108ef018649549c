// headersTimeoutMs, as the DICOM sources' options type declares it: a server that accepts the
// connection and never answers fails with REQUEST_TIMEOUT (RequestTimeoutError) naming the URL,
// at open (QIDO-RS) or at get (WADO-RS frames, files), at the configured timeout and not 1 ms
// before. The timeout runs on an injected clock (tests/setup/watchedClock.ts), moved once the
// fault proxy holds the stalled request and the source waits on that one timer: the requests
// that do get answers (open()'s queries through the proxy to Orthanc) cannot time out however
// slowly a loaded machine answers them.
import { DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';
import { expireTimeout, WatchedClock } from '../setup/watchedClock.js';
import { causes, faultyFiles, faultyPacs } from './faults.js';

const { files, faults } = inject('dicom');
const ct = files.find((f) => f.file === 'ct16-explicit.dcm')!;
const HEADERS_MS = 300;

function timeoutIn(error: unknown): string {
  const line = causes(error).find((c) => c.startsWith('RequestTimeoutError REQUEST_TIMEOUT: '));
  expect(line, causes(error).join('\n')).toBeDefined();
  return line as string;
}

/** `work`'s failure once its request stalled at the proxy (`held()`) times out on `clock`. */
async function timedOut(clock: WatchedClock, work: Promise<unknown>, held: () => Promise<boolean>) {
  const { error, ms } = await expireTimeout(clock, work, {
    what: 'the stalled request',
    ms: HEADERS_MS,
    reached: held,
  });
  expect(ms).toBe(HEADERS_MS);
  return error;
}

describe.skipIf(faults.orthanc === null)('DicomWebSource with headersTimeoutMs', () => {
  it('fails open when the PACS never answers the query', async () => {
    const pacs = faultyPacs('stallall');
    const clock = new WatchedClock();
    const error = await timedOut(
      clock,
      DicomWebSource.open({
        root: pacs.root,
        study: ct.study,
        headersTimeoutMs: HEADERS_MS,
        clock,
      }),
      async () => (await pacs.stats()).requests > 0,
    );
    expect(timeoutIn(error)).toMatch(/no response headers within 300 ms .*\/instances\?/);
  });

  it('fails get when the PACS never answers a frame request', async () => {
    const pacs = faultyPacs('stall');
    const clock = new WatchedClock();
    const source = await DicomWebSource.open({
      root: pacs.root,
      study: ct.study,
      series: ct.series,
      headersTimeoutMs: HEADERS_MS,
      clock,
    });
    const error = await timedOut(
      clock,
      source.get(0),
      async () => (await pacs.stats()).faultProne > 0,
    );
    expect(timeoutIn(error)).toContain(`instances/${ct.instance}/frames/1`);
    source.close();
  });
});

describe('DicomSource with headersTimeoutMs', () => {
  it('fails get when the server never answers the file request', async () => {
    const server = faultyFiles('stall');
    const url = `${server.base}${ct.file}`;
    const clock = new WatchedClock();
    const source = await DicomSource.open({ urls: [url], headersTimeoutMs: HEADERS_MS, clock });
    const error = await timedOut(
      clock,
      source.get(0),
      async () => (await server.stats()).faultProne > 0,
    );
    expect(timeoutIn(error)).toContain(url);
    source.close();
  });
});
