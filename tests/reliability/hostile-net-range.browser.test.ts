// Hostile servers, item 5: a server that ignores Range (200 with the whole object) is
// detected on the first read, which fails with RANGE_NOT_SUPPORTED naming the URL without
// downloading the object (64 MiB here), and every later read of that reader fails the same
// way without a request. Every ranged answer is checked: a Content-Range other than the one
// asked for is BAD_RESPONSE, never sliced into wrong-length members.
import {
  ManualClock,
  ParquetSource,
  RangeReader,
  RemoteReadError,
  WebDatasetSource,
} from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { until } from '../setup/watchedClock.js';
import { bounded, HANG_MS, hostileUrl, report } from './harness.js';

const server = inject('sampleServer');
const BIG = 64 << 20;
/**
 * Most a server may have written of BIG before the client hung up for "not downloaded":
 * socket and network-service buffers (up to 10.5 MB seen on a loaded 2-core machine), not
 * the object.
 */
const NOT_DOWNLOADED = BIG / 4;

/**
 * What the server wrote of `path` once it saw the response end (the client hanging up): the
 * server's side, in real time with a generous bound (REACH_MS), however late a loaded machine
 * closes the connection (50 polls of 20 ms once had to do).
 */
async function bytesSent(path: string): Promise<number> {
  let sent: number | undefined;
  await until(`the end of the response to ${path} at the server`, async () => {
    const stats: Record<string, number> = await (await fetch(`${server}/h-stats`)).json();
    sent = stats[path];
    return sent !== undefined;
  });
  return sent as number;
}

describe('a server that ignores Range', () => {
  it('RangeReader: detected once, typed error naming the URL, the body not downloaded', async (ctx) => {
    await fetch(`${server}/h-stats`, { method: 'DELETE' });
    const url = hostileUrl('no-range', 'big.bin');
    // The request timeouts on a clock nobody moves: a read that waited for one (not for the
    // 64 MiB body, which a loopback sends in well under a second) would never end.
    const reader = new RangeReader({ url, clock: new ManualClock() });
    const { value: error, ms } = await bounded('read of a no-Range server', HANG_MS, () =>
      reader.read(100, 200).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(RemoteReadError);
    expect(error).toMatchObject({ code: 'RANGE_NOT_SUPPORTED', url, status: 200 });
    expect((error as Error).message).toMatch(/ignores Range/);
    expect(reader.requests).toBe(1);
    await expect(reader.read(0, 10)).rejects.toMatchObject({ code: 'RANGE_NOT_SUPPORTED' });
    await expect(reader.probe()).rejects.toMatchObject({ code: 'RANGE_NOT_SUPPORTED' });
    expect(reader.requests).toBe(1);
    const sent = await bytesSent('/h/no-range/big.bin');
    // What the server got out before the client hung up: socket buffers, not the object.
    expect(sent).toBeLessThan(NOT_DOWNLOADED);
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'server ignoring Range (64 MiB object)',
      figures: { ms: Math.round(ms), requests: reader.requests, bytesSent: sent },
    });
  });

  it('WebDatasetSource.get and ParquetSource.open fail with RANGE_NOT_SUPPORTED', async () => {
    const source = await WebDatasetSource.open({
      urls: [hostileUrl('no-range', 'shard.tar')],
      sidecar: () => hostileUrl('ok', 'shard.tar.idx.json'),
    });
    await expect(source.get(3)).rejects.toMatchObject({
      code: 'RANGE_NOT_SUPPORTED',
      url: hostileUrl('no-range', 'shard.tar'),
    });
    source.close();
    await expect(
      ParquetSource.open({ url: hostileUrl('no-range', 'table.parquet'), columns: {} }),
    ).rejects.toMatchObject({
      code: 'RANGE_NOT_SUPPORTED',
      url: hostileUrl('no-range', 'table.parquet'),
    });
  });

  it('a Content-Range other than the one asked for is BAD_RESPONSE', async () => {
    // The server clamps a range past the end: bytes 0-(size-1), not the bytes asked for.
    const reader = new RangeReader({ url: hostileUrl('ok', 'shard.tar') });
    await expect(reader.read(0, 1 << 20)).rejects.toMatchObject({
      code: 'BAD_RESPONSE',
      url: hostileUrl('ok', 'shard.tar'),
    });
    const whole = new RangeReader({ url: hostileUrl('ok', 'shard.tar') });
    expect((await whole.read(512, 4608)).length).toBe(4096);
  });
});

describe("a server that answers a longer range than asked (Vite's static server for bytes=0-0)", () => {
  it('RangeReader takes the bytes asked for from its start and cancels the rest', async () => {
    await fetch(`${server}/h-stats`, { method: 'DELETE' });
    const truth = new Uint8Array(await (await fetch(hostileUrl('ok', 'shard.tar'))).arrayBuffer());
    const reader = new RangeReader({ url: hostileUrl('to-end', 'shard.tar') });
    expect(await reader.probe()).toMatchObject({ size: truth.length });
    expect(await reader.read(0, 1)).toEqual(truth.subarray(0, 1));
    expect(await reader.read(512, 4608)).toEqual(truth.subarray(512, 4608));
    const [a, b] = await reader.readPieces(1024, 9728, [
      { start: 1024, end: 2048 },
      { start: 5120, end: 9728 },
    ]);
    expect(a).toEqual(truth.subarray(1024, 2048));
    expect(b).toEqual(truth.subarray(5120, 9728));
    // 64 MiB behind a one-byte read: the read ends with its byte (the rest is cancelled; how
    // much of it still leaves a loopback server is the engine's buffering: 10-45 MB in
    // Chromium, all of it in WebKit once, so not asserted)
    const big = new RangeReader({ url: hostileUrl('to-end', 'big.bin'), clock: new ManualClock() });
    const { value: first } = await bounded('a 1-byte read of a to-end server', HANG_MS, () =>
      big.read(0, 1),
    );
    expect(first).toHaveLength(1);
    expect(big.size).toBe(BIG);
  });

  it('WebDatasetSource reads every sample exactly through it', async () => {
    const ok = await WebDatasetSource.open({
      urls: [hostileUrl('ok', 'shard.tar')],
      sidecar: () => hostileUrl('ok', 'shard.tar.idx.json'),
    });
    const source = await WebDatasetSource.open({
      urls: [hostileUrl('to-end', 'shard.tar')],
      sidecar: () => hostileUrl('ok', 'shard.tar.idx.json'),
    });
    expect(source.length).toBe(ok.length);
    for (let i = 0; i < source.length; i++) {
      expect((await source.get(i)).files).toEqual((await ok.get(i)).files);
    }
    source.close();
    ok.close();
  });
});
