import {
  decodeTarIndex,
  encodeTarIndex,
  groupSamples,
  indexTarStream,
  splitSampleName,
} from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS } from '../fixtures-shards/fixtures.js';

const { nginx } = inject('shardServers');

/** Stream `bytes` in chunks of pseudo-random sizes (1..1500 bytes), views or copies. */
function chunked(bytes: Uint8Array, seed: number, copy: boolean): ReadableStream<Uint8Array> {
  let x = seed;
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const n = 1 + (x % 1500);
      const view = bytes.subarray(at, Math.min(bytes.length, at + n));
      at += view.length;
      controller.enqueue(copy ? view.slice() : view);
    },
  });
}

describe('tar index: offsets agree with GNU tar', () => {
  it('finds every member where `tar --block-number` says it is, whatever the chunking', async () => {
    const name = GNU_SHARDS[0].name;
    const bytes = new Uint8Array(await (await fetch(`${nginx}${name}`)).arrayBuffer());
    const sidecar = decodeTarIndex(await (await fetch(`${nginx}${name}.idx.json`)).text()).members;
    expect(sidecar).toHaveLength(GNU_SHARDS[0].samples * 3);
    for (const [seed, copy] of [
      [1, false],
      [2, true],
      [3, false],
    ] as const) {
      const members = await indexTarStream(chunked(bytes, seed, copy));
      expect(members).toEqual(sidecar);
    }
  });

  it('groups consecutive members by key and round-trips the index format', () => {
    const members = [
      { name: 'a/x.png', offset: 512, size: 10 },
      { name: 'a/x.cls', offset: 1536, size: 1 },
      { name: 'a/y.seg.png', offset: 2560, size: 5 },
      { name: 'README', offset: 3584, size: 3 },
    ];
    const samples = groupSamples(members);
    expect(samples.map((s) => [s.key, s.start, s.end, s.members.map((m) => m.ext)])).toEqual([
      ['a/x', 512, 1537, ['png', 'cls']],
      ['a/y', 2560, 2565, ['seg.png']],
    ]);
    expect(splitSampleName('dir.v2/name.tar.gz')).toEqual({ key: 'dir.v2/name', ext: 'tar.gz' });
    expect(splitSampleName('.hidden')).toBeUndefined();
    const { members: back, file } = decodeTarIndex(encodeTarIndex(members, { etag: '"e"' }));
    expect(back).toEqual(members);
    expect(file.etag).toBe('"e"');
  });

  it('rejects malformed indices with BAD_FORMAT naming the entry', () => {
    expect(() => decodeTarIndex('not json')).toThrow(
      expect.objectContaining({ code: 'BAD_FORMAT' }),
    );
    expect(() =>
      decodeTarIndex(
        JSON.stringify({ format: 'medfusion-tar-index', version: 1, entries: [['a', -1, 2]] }),
      ),
    ).toThrow(/entries\[0\] must be \[name, offset, size\]/);
  });
});
