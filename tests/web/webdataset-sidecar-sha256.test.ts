// Sidecar indices of shards whose sha256 the manifest gives (issue 45): the sidecar is used
// (no streaming pass over the shard to build its index, so a shard is not fetched twice),
// and trusted only as far as reads check it: a shard's first read is the whole shard,
// checked against the sha256 and every tar header against the index, so a tampered sidecar
// or shard returns no sample. Shards, sidecars (from GNU tar's listing) and the manifest
// (sha256sum) are the nginx fixtures on 127.0.0.1; a tampered sidecar is served by
// rewriting the real one's response.
import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');

type Entry = [string, number, number];

/** A fetch that counts requests to shards and rewrites shard 0's sidecar with `edit`. */
function fetchWith(edit?: (entries: Entry[]) => Entry[]) {
  const seen = { shardGets: 0, rangeGets: 0, rangeBytes: 0 };
  const wrapped: typeof fetch = async (input, init) => {
    const url = String(input);
    const range = new Headers(init?.headers).get('Range');
    if (url.endsWith('.tar')) {
      if (range) {
        seen.rangeGets++;
        const [a, b] = range.slice('bytes='.length).split('-').map(Number);
        seen.rangeBytes += (b as number) - (a as number) + 1;
      } else seen.shardGets++;
    }
    const res = await fetch(input, init);
    if (edit && url.endsWith(`${GNU_SHARDS[0].name}.idx.json`) && res.ok) {
      const index = (await res.json()) as { entries: Entry[] };
      index.entries = edit(index.entries);
      return new Response(JSON.stringify(index), { status: 200 });
    }
    return res;
  };
  return { fetch: wrapped, seen };
}

/** Global index → [shard, local] for the 24 + 20 + 28 fixture samples. */
function where(i: number): [number, number] {
  return i < 24 ? [0, i] : i < 44 ? [1, i - 24] : [2, i - 44];
}

describe('WebDatasetSource: sidecar indices under a sha256', () => {
  it('reads each shard once through its sidecar, checked whole against the sha256', async () => {
    const { fetch, seen } = fetchWith();
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest.json`, fetch });
    for (let i = 0; i < 44; i++) {
      const [shard, local] = where(i);
      expect((await source.get(i)).files).toEqual(sampleFiles(shard, local));
    }
    // Before: every shard with a sha256 was streamed whole to build its index, then read again.
    expect(source.stats()).toMatchObject({ sidecarHits: 2, indexBuilds: 0 });
    expect(seen.shardGets).toBe(0);
    source.close();
  });

  it('returns no sample of a shard whose sidecar swaps two samples (BAD_FORMAT)', async () => {
    const { fetch } = fetchWith((entries) => {
      // The .cls members of samples 0 and 1 trade names (and so their labels).
      const a = entries.findIndex((e) => e[0].endsWith('00.cls'));
      const b = entries.findIndex((e) => e[0].endsWith('01.cls'));
      const name = (entries[a] as Entry)[0];
      (entries[a] as Entry)[0] = (entries[b] as Entry)[0];
      (entries[b] as Entry)[0] = name;
      return entries;
    });
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest.json`, fetch });
    for (const i of [0, 1, 5, 23]) {
      await expect(source.get(i)).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    }
    expect((await source.get(30)).files).toEqual(sampleFiles(1, 6)); // the other shard is fine
    source.close();
  });

  it('does not use a sidecar that leaves a member out: the shard is streamed instead', async () => {
    const { fetch, seen } = fetchWith((entries) =>
      entries.filter((e) => !e[0].endsWith('03.json')),
    );
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest.json`, fetch });
    for (const i of [0, 3, 23]) {
      expect((await source.get(i)).files).toEqual(sampleFiles(0, i));
    }
    expect(source.stats()).toMatchObject({ sidecarHits: 0, indexBuilds: 1 });
    expect(seen.shardGets).toBe(1);
    source.close();
  });

  it('fails CHECKSUM_MISMATCH on a shard that does not match, sidecar or not, every time', async () => {
    const source = await WebDatasetSource.open({ manifestUrl: `${nginx}manifest-badsha.json` });
    for (let k = 0; k < 2; k++) {
      await expect(source.get(30)).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    }
    expect(source.stats().sidecarHits).toBe(1);
    source.close();
  });
});

describe('WebDatasetSource: maxIndexSamples', () => {
  it('drops the least recently used shard tables beyond the budget and loads them again', async () => {
    const source = await WebDatasetSource.open({
      manifestUrl: `${nginx}manifest.json`,
      maxIndexSamples: 24,
      lookahead: 4,
    });
    for (let i = 0; i < 72; i++) {
      const [shard, local] = where(i);
      expect((await source.get(i)).files).toEqual(sampleFiles(shard, local));
      expect(source.stats().indexSamplesHeld).toBeLessThanOrEqual(28); // the budget or one shard
    }
    expect(source.stats()).toMatchObject({ sidecarHits: 2, indexSamplesHeld: 28 });
    expect((await source.get(5)).files).toEqual(sampleFiles(0, 5)); // shard 0's table again
    expect(source.stats()).toMatchObject({ sidecarHits: 3, indexSamplesHeld: 24 });
    source.close();
  });
});
