// packFiles: PNG files + a labels CSV packed into shards in OPFS, read back by
// WebDatasetSource over opfsShards (no server) and by this test's own ustar walk:
// every member holds the input's bytes, the manifest's sha256s are the shards'.
import {
  DataLoader,
  opfsShards,
  type PackProgress,
  packFiles,
  WebDatasetSource,
} from '@medfusion/web';
import { afterAll, describe, expect, it } from 'vitest';
import {
  opfsBytes,
  opfsDir,
  opfsNames,
  pngFiles,
  removeOpfsDir,
  ustarMembers,
} from './packFixtures.js';

const DIR = 'pack-roundtrip';
const N = 12;

async function sha256(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

describe('packFiles: files + labels CSV into OPFS shards', () => {
  afterAll(() => removeOpfsDir(DIR));

  it('writes shards whose members are the inputs, read back by WebDatasetSource offline', async () => {
    await removeOpfsDir(DIR);
    const images = pngFiles(N);
    const csv = [
      'image,age,label',
      ...images.map((f, i) => `${f.name},${40 + i},${i % 3 === 0 ? 'cat' : 'dog'}`),
    ].join('\n');
    const events: PackProgress[] = [];
    const result = await packFiles({
      files: [...images, new File([csv], 'labels.csv')],
      labels: new File([csv], 'labels.csv'),
      dir: DIR,
      targetShardBytes: 4096,
      onProgress: (p) => events.push(p),
    });
    expect(result).toMatchObject({ dir: DIR, samples: N, skipped: 0, classes: ['cat', 'dog'] });
    expect(result.shards).toBeGreaterThan(1);
    const last = events.at(-1) as PackProgress;
    expect(last).toMatchObject({ phase: 'write', done: N, total: N });
    expect(last.bytesDone).toBe(last.bytesTotal);
    expect(events.some((e) => e.phase === 'scan')).toBe(true);

    // The files in OPFS, checked by our own ustar walk and sha256.
    const dir = (await opfsDir(DIR)) as FileSystemDirectoryHandle;
    const manifest = JSON.parse(new TextDecoder().decode(await opfsBytes(dir, 'manifest.json')));
    expect(manifest).toMatchObject({ format: 'medfusion-shards', version: 1, count: N });
    expect(manifest.labels).toEqual({
      column: 'label',
      type: 'class',
      counts: { cat: 4, dog: 8 },
      classes: ['cat', 'dog'],
    });
    expect(manifest.columns).toEqual([{ name: 'age', type: 'number' }]);
    const names = await opfsNames(dir);
    const members: { name: string; data: Uint8Array }[] = [];
    for (const shard of manifest.shards) {
      expect(names).toContain(`${shard.url}.idx.json`);
      const tar = await opfsBytes(dir, shard.url);
      expect(tar.length).toBe(shard.bytes);
      expect(await sha256(tar)).toBe(shard.sha256);
      members.push(...ustarMembers(tar));
    }
    const imageBytes = await Promise.all(
      images.map(async (f) => new Uint8Array(await f.arrayBuffer())),
    );
    expect(members.map((m) => m.name)).toEqual(
      images.flatMap((_, i) => [`img${i}.png`, `img${i}.cls`, `img${i}.json`]),
    );
    for (let i = 0; i < N; i++) {
      expect(members[3 * i]?.data).toEqual(imageBytes[i]);
      expect(new TextDecoder().decode(members[3 * i + 1]?.data)).toBe(i % 3 === 0 ? '0' : '1');
      expect(JSON.parse(new TextDecoder().decode(members[3 * i + 2]?.data))).toEqual({
        age: 40 + i,
      });
    }

    // The library's shard source reads them from OPFS, and a DataLoader trains on them.
    const ds = await WebDatasetSource.open(opfsShards(DIR));
    expect(ds.length).toBe(N);
    for (let i = 0; i < N; i++) {
      const s = await ds.get(i);
      expect(s.key).toBe(`img${i}`);
      expect(s.files.png).toEqual(imageBytes[i]);
    }
    const loader = new DataLoader(
      await WebDatasetSource.open({
        ...opfsShards(DIR),
        transform: (s) => ({
          label: new Int32Array([Number(new TextDecoder().decode(s.files.cls))]),
        }),
      }),
      { batchSize: 5, shuffle: true, seed: 1 },
    );
    let seen = 0;
    for await (const batch of loader)
      seen += (batch.label as { shape: number[] }).shape[0] as number;
    expect(seen).toBe(N);
  });
});
