// Hostile data, item 8: malformed but plausible shard indexes. A sidecar whose
// entries overlap, whose data starts are not on 512-byte boundaries, or whose
// ranges run past the shard's size is refused with BAD_FORMAT naming the sidecar
// URL and the entry (before, one member silently returned another's bytes or a
// tar header); a member repeated inside one sample is an error (as in Python's
// webdataset), whether the index comes from a sidecar or from the shard itself;
// a forged index in the store is dropped and rebuilt from the shard.
import { MemoryStore, SourceFormatError, WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { bounded, HANG_MS, report } from './harness.js';

const server = inject('sampleServer');
const enc = new TextEncoder();

/** A ustar archive of `files`, and where each member's data starts. */
function tar(files: [string, Uint8Array][]): { bytes: Uint8Array<ArrayBuffer>; offsets: number[] } {
  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (const [name, data] of files) {
    const h = new Uint8Array(512);
    const put = (text: string, offset: number) => h.set(enc.encode(text), offset);
    put(name, 0);
    put('0000644\0', 100);
    put('0000000\0', 108);
    put('0000000\0', 116);
    put(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    put('00000000000\0', 136);
    put('        ', 148);
    put('0', 156);
    put('ustar\0', 257);
    put('00', 263);
    const sum = h.reduce((a, b) => a + b, 0);
    put(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    parts.push(h);
    offsets.push(at + 512);
    const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
    padded.set(data);
    parts.push(padded);
    at += 512 + padded.length;
  }
  parts.push(new Uint8Array(1024));
  const bytes = new Uint8Array(at + 1024);
  let o = 0;
  for (const p of parts) {
    bytes.set(p, o);
    o += p.length;
  }
  return { bytes, offsets };
}

/** Deterministic member bytes. */
const bytesOf = (seed: number, n: number) =>
  Uint8Array.from({ length: n }, (_, k) => (seed * 37 + k) & 0xff);

/** Put a file on the sample server (served with Range and ETag); its URL. */
async function upload(name: string, body: Uint8Array<ArrayBuffer> | string): Promise<string> {
  const url = `${server}/files/${name}`;
  const res = await fetch(url, {
    method: 'PUT',
    body,
  });
  expect(res.status).toBe(204);
  return url;
}

const FILES: [string, Uint8Array][] = [
  ['s0.png', bytesOf(1, 700)],
  ['s0.cls', enc.encode('3')],
  ['s1.png', bytesOf(2, 900)],
  ['s1.cls', enc.encode('5')],
];
const shardOf = tar(FILES);

/** A sidecar for `shardOf` with entries changed by `edit`. */
function sidecar(edit: (entries: [string, number, number][]) => void, size?: number): string {
  const entries = FILES.map(([name, data], i) => [name, shardOf.offsets[i], data.length]) as [
    string,
    number,
    number,
  ][];
  edit(entries);
  return JSON.stringify({
    format: 'medfusion-tar-index',
    version: 1,
    entries,
    ...(size === undefined ? {} : { size }),
  });
}

/** Open the shard with the given sidecar text; the error, if open() rejects. */
async function openWith(tag: string, index: string) {
  const shard = await upload(`${tag}.tar`, shardOf.bytes);
  const indexUrl = await upload(`${tag}.idx.json`, index);
  const { value, ms } = await bounded(`open() with sidecar ${tag}`, HANG_MS, () =>
    WebDatasetSource.open({ urls: [shard], sidecar: () => indexUrl }).then(
      (source) => ({ source, error: undefined }),
      (error: unknown) => ({ source: undefined, error }),
    ),
  );
  return { ...value, indexUrl, ms };
}

describe('hostile shard indexes', () => {
  it('a correct sidecar serves every member byte-exact (control)', async () => {
    const { source, error } = await openWith(
      `ok-${Date.now()}`,
      sidecar(() => {}),
    );
    expect(error).toBeUndefined();
    const s1 = await source!.get(1);
    expect(s1.files.png).toEqual(FILES[2]![1]);
    expect(new TextDecoder().decode(s1.files.cls)).toBe('5');
    expect(source!.stats().sidecarHits).toBe(1);
    source!.close();
  });

  it.for([
    [
      'overlapping entries',
      (e: [string, number, number][]) => {
        e[1]![1] = e[0]![1]; // s0.cls "starts" on s0.png's data
      },
      undefined,
      /entries\[1\] \(s0\.cls\) data starts at 512, inside entries\[0\] and its header/,
    ],
    [
      'a data start off the 512-byte grid',
      (e: [string, number, number][]) => {
        e[2]![1] += 100;
      },
      undefined,
      /entries\[2\] \(s1\.png\) data starts at \d+, not on a 512-byte boundary/,
    ],
    [
      'a range past the shard size',
      (e: [string, number, number][]) => {
        e[3]![2] = 4096;
      },
      shardOf.bytes.length,
      /entries\[3\] \(s1\.cls\) ends at \d+, past the shard's size \d+/,
    ],
    [
      'out of archive order',
      (e: [string, number, number][]) => {
        e.reverse();
      },
      undefined,
      /entries\[1\] \(s1\.png\).*out of archive order/,
    ],
  ] as [string, (e: [string, number, number][]) => void, number | undefined, RegExp][])(
    'a sidecar with %s is refused with BAD_FORMAT naming it',
    async ([label, edit, size, message], ctx) => {
      const tag = `bad-${label.replaceAll(/\W+/g, '-')}-${Date.now()}`;
      const { error, indexUrl, ms } = await openWith(tag, sidecar(edit, size));
      expect(error).toBeInstanceOf(SourceFormatError);
      expect(error).toMatchObject({ code: 'BAD_FORMAT' });
      expect(String((error as Error).message)).toContain(indexUrl);
      expect(String((error as Error).message)).toMatch(message);
      report(ctx.task, {
        scenario: 'hostile inputs',
        case: `sidecar index: ${label}`,
        figures: { code: 'BAD_FORMAT', ms: Math.round(ms) },
      });
    },
  );

  it('a member repeated inside one sample is an error, from a sidecar or from the shard', async (ctx) => {
    const files: [string, Uint8Array][] = [
      ['d0.png', bytesOf(3, 100)],
      ['d0.cls', enc.encode('1')],
      ['d0.png', bytesOf(4, 100)],
    ];
    const dup = tar(files);
    const tag = `dup-${Date.now()}`;
    const shard = await upload(`${tag}.tar`, dup.bytes);
    const entries = files.map(([n, d], i) => [n, dup.offsets[i], d.length]);
    const indexUrl = await upload(
      `${tag}.idx.json`,
      JSON.stringify({ format: 'medfusion-tar-index', version: 1, entries }),
    );
    const fromSidecar = WebDatasetSource.open({ urls: [shard], sidecar: () => indexUrl });
    await expect(fromSidecar).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    await expect(fromSidecar).rejects.toThrow(
      `${indexUrl}: member d0.png appears twice in sample d0`,
    );
    const { value: built, ms } = await bounded(
      'indexing a shard with a repeated member',
      HANG_MS,
      () =>
        WebDatasetSource.open({ urls: [shard], sidecar: false }).then(
          () => undefined,
          (e: unknown) => e,
        ),
    );
    expect(built).toBeInstanceOf(SourceFormatError);
    expect(String((built as Error).message)).toBe(
      `${shard}: member d0.png appears twice in sample d0`,
    );
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'member repeated inside one sample',
      figures: { code: 'BAD_FORMAT', ms: Math.round(ms) },
    });
  });

  it('a forged index in the store is dropped and rebuilt from the shard', async (ctx) => {
    const tag = `store-${Date.now()}`;
    const shard = await upload(`${tag}.tar`, shardOf.bytes);
    const store = new MemoryStore();
    const first = await WebDatasetSource.open({ urls: [shard], store, sidecar: false });
    expect(first.stats()).toMatchObject({ indexBuilds: 1 });
    first.close();
    const [key] = await store.keys();
    const stored = JSON.parse(new TextDecoder().decode((await store.get(key!)) as Uint8Array));
    stored.entries[3][1] = stored.entries[2][1]; // s1.cls onto s1.png's bytes
    await store.put(key!, enc.encode(JSON.stringify(stored)));

    const { value: again, ms } = await bounded('reopen with a forged stored index', HANG_MS, () =>
      WebDatasetSource.open({ urls: [shard], store, sidecar: false }),
    );
    expect(again.stats()).toMatchObject({ indexBuilds: 1, storeHits: 0 });
    const s1 = await again.get(1);
    expect(new TextDecoder().decode(s1.files.cls)).toBe('5');
    expect(s1.files.png).toEqual(FILES[2]![1]);
    again.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'forged index in the store',
      figures: { rebuilt: 1, ms: Math.round(ms) },
    });
  });
});
