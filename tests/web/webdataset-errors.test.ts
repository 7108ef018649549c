import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');
const url = `${nginx}${GNU_SHARDS[0].name}`;

describe('WebDatasetSource: bad input and failures', () => {
  it('rejects bad options naming them', async () => {
    await expect(WebDatasetSource.open({})).rejects.toThrow(TypeError);
    await expect(WebDatasetSource.open({ urls: [url], manifestUrl: url })).rejects.toThrow(
      /exactly one of urls or manifestUrl/,
    );
    await expect(WebDatasetSource.open({ urls: [url], lookahead: 0 })).rejects.toThrow(
      /lookahead must be a positive integer, got 0/,
    );
    await expect(WebDatasetSource.open({ urls: [] })).rejects.toThrow(/urls must be a non-empty/);
  });

  it('rejects out-of-range indices and use after close', async () => {
    const source = await WebDatasetSource.open({ urls: [url] });
    await expect(source.get(24)).rejects.toThrow(/index 24 is out of range \[0, 24\)/);
    await expect(source.get(-1)).rejects.toThrow(RangeError);
    source.close();
    await expect(source.get(0)).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('reports a file that is not a tar as BAD_FORMAT', async () => {
    await expect(
      WebDatasetSource.open({ urls: [`${nginx}not-a-tar.tar`], sidecar: false }),
    ).rejects.toMatchObject({ code: 'BAD_FORMAT' });
  });

  it('reports a missing shard as HTTP_ERROR 404 without retrying', async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    await expect(
      WebDatasetSource.open({ urls: [`${nginx}missing.tar`], sidecar: false, fetch: counting }),
    ).rejects.toMatchObject({ code: 'HTTP_ERROR', status: 404 });
    expect(calls).toBe(1);
  });

  it('stops waiting when the signal aborts', async () => {
    const source = await WebDatasetSource.open({ urls: [url] });
    const ac = new AbortController();
    const p = source.get(3, { signal: ac.signal });
    ac.abort(new Error('not needed any more'));
    await expect(p).rejects.toThrow('not needed any more');
    source.close();
  });
});
