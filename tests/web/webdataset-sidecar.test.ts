import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');

describe('WebDatasetSource: sidecar index', () => {
  it('reads the index from a sidecar made by GNU tar and streams only shards without one', async () => {
    let shardGets = 0;
    const counting: typeof fetch = (input, init) => {
      const url = String(input);
      const h = new Headers(init?.headers);
      if (url.endsWith('.tar') && !h.has('Range')) shardGets++;
      return fetch(input, init);
    };
    const source = await WebDatasetSource.open({
      urls: GNU_SHARDS.map((s) => `${nginx}${s.name}`),
      fetch: counting,
    });
    // Shards 0 and 1 have `<shard>.idx.json` next to them; shard 2 does not (404).
    expect(source.stats()).toMatchObject({ sidecarHits: 2, indexBuilds: 1 });
    expect(shardGets).toBe(1);
    for (const i of [0, 23, 24, 43, 44, 71]) {
      const shard = i < 24 ? 0 : i < 44 ? 1 : 2;
      const local = i - [0, 24, 44][shard]!;
      expect((await source.get(i)).files).toEqual(sampleFiles(shard, local));
    }
    source.close();
  });
});
