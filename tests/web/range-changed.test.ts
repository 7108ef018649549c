import { ObjectChangedError, RangeReader, WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx, changing } = inject('shardServers');
const name = GNU_SHARDS[0].name;

describe('an object replaced in the middle of a read', () => {
  it('RangeReader fails with OBJECT_CHANGED instead of returning the new bytes', async () => {
    const whole = new Uint8Array(await (await fetch(`${nginx}${name}`)).arrayBuffer());
    // The server swaps the object after 3 requests of this run.
    const reader = new RangeReader({ url: `${changing}${crypto.randomUUID()}/3/${name}` });
    for (let i = 0; i < 3; i++) {
      expect(await reader.read(i * 1024, (i + 1) * 1024)).toEqual(
        whole.subarray(i * 1024, (i + 1) * 1024),
      );
    }
    const err = await reader.read(3 * 1024, 4 * 1024).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectChangedError);
    expect(err).toMatchObject({ code: 'OBJECT_CHANGED' });
    expect((err as ObjectChangedError).expectedEtag).toBe(reader.etag);
  });

  it('detects the change without If-Match too, from the new ETag', async () => {
    const plain: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.delete('If-Match');
      return fetch(input, { ...init, headers });
    };
    const reader = new RangeReader({
      url: `${changing}${crypto.randomUUID()}/1/${name}`,
      fetch: plain,
    });
    await reader.read(0, 100);
    await expect(reader.read(100, 200)).rejects.toMatchObject({ code: 'OBJECT_CHANGED' });
  });

  it('WebDatasetSource never mixes versions: old samples are exact, later reads fail', async () => {
    // Request 1 streams the shard for the index; requests 2-3 read samples; then it changes.
    const source = await WebDatasetSource.open({
      urls: [`${changing}${crypto.randomUUID()}/3/${name}`],
      sidecar: false,
    });
    expect((await source.get(0)).files).toEqual(sampleFiles(0, 0));
    expect((await source.get(1)).files).toEqual(sampleFiles(0, 1));
    await expect(source.get(2)).rejects.toMatchObject({ code: 'OBJECT_CHANGED' });
    await expect(source.get(3)).rejects.toMatchObject({ code: 'OBJECT_CHANGED' });
    source.close();
  });
});
