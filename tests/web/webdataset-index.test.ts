import { WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import {
  GNU_LONG_SHARD,
  GNU_SHARDS,
  LONG_DIR,
  PAX_SHARD,
  sampleFiles,
  sampleKey,
} from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');

describe('WebDatasetSource: index built by streaming GNU tar shards', () => {
  it('groups members by basename and returns every sample byte-exact', async () => {
    const source = await WebDatasetSource.open({
      urls: GNU_SHARDS.map((s) => `${nginx}${s.name}`),
      sidecar: false,
    });
    expect(source.shardSizes).toEqual(GNU_SHARDS.map((s) => s.samples));
    expect(source.length).toBe(72);
    expect(source.stats().indexBuilds).toBe(3);
    let index = 0;
    for (const [shard, s] of GNU_SHARDS.entries()) {
      for (let i = 0; i < s.samples; i++, index++) {
        const sample = await source.get(index);
        expect(sample.key).toBe(sampleKey(shard, i));
        expect(sample.shard).toBe(shard);
        expect(sample.files).toEqual(sampleFiles(shard, i));
      }
    }
    source.close();
  });

  it('finds the data of PAX and GNU long-name members', async () => {
    const source = await WebDatasetSource.open({
      urls: [`${nginx}${PAX_SHARD.name}`, `${nginx}${GNU_LONG_SHARD.name}`],
      sidecar: false,
    });
    expect(source.shardSizes).toEqual([PAX_SHARD.samples, GNU_LONG_SHARD.samples]);
    for (let i = 0; i < PAX_SHARD.samples; i++) {
      const pax = await source.get(i);
      expect(pax.key).toBe(`${LONG_DIR}/${sampleKey(10, i)}`);
      expect(pax.files).toEqual(sampleFiles(10, i));
      const gnu = await source.get(PAX_SHARD.samples + i);
      expect(gnu.key).toBe(`${LONG_DIR}/${sampleKey(11, i)}`);
      expect(gnu.files).toEqual(sampleFiles(11, i));
    }
    source.close();
  });

  it('applies the transform to each sample', async () => {
    const source = await WebDatasetSource.open({
      urls: [`${nginx}${GNU_SHARDS[0].name}`],
      transform: (s, index) => ({ index, label: Number(new TextDecoder().decode(s.files.cls)) }),
    });
    expect(await source.get(5)).toEqual({ index: 5, label: 5 });
    source.close();
  });
});
