// Hostile servers, item 5: a server that ignores Range (200 with the whole object) is
// detected on the first read, which fails with RANGE_NOT_SUPPORTED naming the URL without
// downloading the object (64 MiB here), and every later read of that reader fails the same
// way without a request. Every ranged answer is checked: a Content-Range other than the one
// asked for is BAD_RESPONSE, never sliced into wrong-length members.
import { ParquetSource, RangeReader, RemoteReadError, WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { bounded, hostileUrl, report } from './harness.js';

const server = inject('sampleServer');
/** The no-Range read fails without waiting on the 64 MiB body or a 30 s timeout (loaded machines too). */
const BOUND_MS = 10_000;
const BIG = 64 << 20;

async function bytesSent(path: string): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const stats: Record<string, number> = await (await fetch(`${server}/h-stats`)).json();
    if (stats[path] !== undefined) return stats[path] as number;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no response to ${path} was finished`);
}

describe('a server that ignores Range', () => {
  it('RangeReader: detected once, typed error naming the URL, the body not downloaded', async (ctx) => {
    await fetch(`${server}/h-stats`, { method: 'DELETE' });
    const url = hostileUrl('no-range', 'big.bin');
    const reader = new RangeReader({ url });
    const { value: error, ms } = await bounded('read of a no-Range server', BOUND_MS, () =>
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
    expect(sent).toBeLessThan(BIG / 8);
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
