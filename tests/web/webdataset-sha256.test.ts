import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');

describe('WebDatasetSource: sha256 per shard from the manifest', () => {
  it('verifies shards whose hash matches (sha256sum wrote the manifest)', async () => {
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest.json` });
    expect(source.length).toBe(72);
    expect((await source.get(30)).files).toEqual(sampleFiles(1, 6));
    // Lazily, the one shard touched: its sidecar, checked by reading the shard whole (issue 45).
    expect(source.stats()).toMatchObject({ indexBuilds: 0, sidecarHits: 1 });
    source.close();
  });

  it('fails with CHECKSUM_MISMATCH and returns no bytes from a shard that does not match', async () => {
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest-badsha.json` });
    expect((await source.get(0)).files).toEqual(sampleFiles(0, 0));
    await expect(source.get(30)).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    source.close();
  });

  it('indexes every shard at open when the manifest has no sample counts', async () => {
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest-nocounts.json` });
    expect(source.shardSizes).toEqual([24, 20, 28]);
    expect(source.stats()).toMatchObject({ indexBuilds: 1, sidecarHits: 2 }); // shard 2 has no sidecar
    source.close();
  });
});
