// One AbortSignal shared by many requests (a loader's, a page's) keeps nothing of them: every
// request of web's fetchWithTimeout stops watching the signal when it settles (body read,
// refused, failed, timed out, aborted), and while they are in flight they share one 'abort'
// listener, so Node never prints MaxListenersExceededWarning (it did, 14 times, reading shards).
// Runs in Node against a real HTTP server on 127.0.0.1 that the test starts and stops. The
// request timeouts run on an injected clock, moved only once every request that gets an answer
// has settled: however slowly a loaded machine answers, none of them can time out.
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '@medfusion/core';
import { OriginLimiter, RangeReader, RequestTimeoutError } from '@medfusion/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchWithTimeout, readBody } from '../../packages/web/src/remote/fetchWithTimeout.js';
import { turns, until, WatchedClock } from '../setup/watchedClock.js';

const BODY = Buffer.alloc(4096, 7);
let server: Server;
let base = '';
/** Requests of /stall the server has received. */
let stallHits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const range = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    if (req.url === '/missing') res.writeHead(404, { 'Content-Length': 9 }).end('not found');
    else if (req.url === '/stall') {
      stallHits++;
      return; // never answers
    } else if (req.url === '/stall-body')
      res.writeHead(200).write('a'); // then nothing
    else if (range) {
      const [start, end] = [Number(range[1]), Number(range[2])];
      res.writeHead(206, {
        'Content-Range': `bytes ${start}-${end}/${BODY.length}`,
        'Content-Length': end - start + 1,
        ETag: '"v1"',
      });
      res.end(BODY.subarray(start, end + 1));
    } else res.writeHead(200, { 'Content-Length': BODY.length }).end(BODY);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});

/** Run `work`, then return the MaxListenersExceededWarnings Node emitted meanwhile. */
async function warningsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (w: Error) => {
    if (w.name === 'MaxListenersExceededWarning') seen.push(w.message);
  };
  process.on('warning', onWarning);
  try {
    await work();
    await new Promise((flushed) => setImmediate(flushed)); // warnings are emitted on next tick
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
/** Distinct, so a pending timer tells a headers wait (stall) from a body wait (stall-body). */
const HEADERS_MS = 300;
const IDLE_MS = 200;
const timeoutsOn = (clock: ManualClock) => ({
  headersTimeoutMs: HEADERS_MS,
  idleTimeoutMs: IDLE_MS,
  clock,
});
/** A fetch whose connection is refused, as a server that is gone. */
const refused: typeof fetch = () => Promise.reject(new TypeError('fetch failed'));

describe('fetchWithTimeout with one signal shared by 50 requests', () => {
  it('stops watching the signal as each request settles, whatever its end', async () => {
    const shared = new AbortController();
    const { signal } = shared;
    const clock = new WatchedClock();
    const timeouts = timeoutsOn(clock);
    let inFlight = -1;
    const outcomes: string[] = [];
    const request = async (i: number): Promise<void> => {
      const kind = ['ok', 'missing', 'stall', 'stall-body', 'refused'][i % 5]!;
      try {
        const fetchFn = kind === 'refused' ? refused : fetch;
        const res = await fetchWithTimeout(fetchFn, `${base}/${kind}`, {}, timeouts, signal);
        if (res.ok) await readBody(res.body);
        else await res.body?.cancel();
        outcomes.push(`${kind}: ${res.status}`);
      } catch (error) {
        outcomes.push(`${kind}: ${error instanceof RequestTimeoutError ? 'timeout' : 'failed'}`);
      }
    };
    const warnings = await warningsDuring(async () => {
      const all = Promise.all(Array.from({ length: 50 }, (_, i) => request(i)));
      // The 30 answered (ok, missing, refused) settle on their own; the 10 stalls wait for
      // their headers, the 10 body stalls for their next bytes, each on one timer.
      const waiting = (ms: number) => clock.pendingTimers().filter((t) => t.ms === ms).length;
      await until(
        'the 30 answered requests settled, the 20 stalled ones waiting',
        () => outcomes.length === 30 && waiting(HEADERS_MS) === 10 && waiting(IDLE_MS) === 10,
      );
      inFlight = listeners(signal);
      await clock.advance(IDLE_MS - 1);
      await turns();
      expect(outcomes.length, 'settled before a timeout').toBe(30);
      await clock.advance(HEADERS_MS - IDLE_MS + 1);
      await all;
    });
    expect(new Set(outcomes)).toEqual(
      new Set([
        'ok: 200',
        'missing: 404',
        'stall: timeout',
        'stall-body: timeout',
        'refused: failed',
      ]),
    );
    expect(inFlight, 'requests in flight share one listener').toBeLessThanOrEqual(1);
    expect(listeners(signal), 'listeners left on the signal').toBe(0);
    expect(warnings).toEqual([]);
  });

  it('stops watching it when the signal aborts them all', async () => {
    const shared = new AbortController();
    const reason = new Error('stop');
    // A clock nobody moves: no timeout can end a request before the signal does.
    const timeouts = timeoutsOn(new ManualClock());
    const before = stallHits;
    const warnings = await warningsDuring(async () => {
      const all = Array.from({ length: 50 }, () =>
        fetchWithTimeout(fetch, `${base}/stall`, {}, timeouts, shared.signal).then(
          () => 'answered',
          (e: unknown) => e,
        ),
      );
      await until('the 50 requests at the server', () => stallHits - before === 50);
      expect(listeners(shared.signal), 'requests in flight share one listener').toBe(1);
      shared.abort(reason);
      expect(new Set(await Promise.all(all))).toEqual(new Set([reason]));
    });
    expect(listeners(shared.signal)).toBe(0);
    expect(warnings).toEqual([]);
  });
});

describe('RangeReader: 50 reads on one shared signal', () => {
  it('leaves no listener and no warning (origin queue, retries and requests included)', async () => {
    const shared = new AbortController();
    const reader = new RangeReader({
      url: `${base}/shard.tar`,
      limiter: new OriginLimiter(4), // most reads wait for a slot, watching the signal
    });
    const warnings = await warningsDuring(async () => {
      const reads = Array.from({ length: 50 }, (_, i) =>
        reader.read(i * 64, i * 64 + 64, { signal: shared.signal }),
      );
      for (const bytes of await Promise.all(reads))
        expect(bytes).toEqual(new Uint8Array(64).fill(7));
    });
    expect(listeners(shared.signal)).toBe(0);
    expect(warnings).toEqual([]);
  });
});
