// Hostile data, item 2: credentials never leave their origin. Manifest URLs that
// resolve outside the base (another origin, `../`, `/abs`, encoded separators)
// are refused with URL_NOT_ALLOWED before any request; an origin the user allows
// explicitly is fetched without the user's headers. The sample server on
// 127.0.0.1 (another origin than the test page) records what it received.
import { CsvImageDataset, UrlNotAllowedError, WebDatasetSource } from '@medfusion/web';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { report } from './harness.js';

const server = inject('sampleServer');
const images = new URL('/tests/web/fixtures/csv-images/images/', location.origin).href;
const secret = { Authorization: 'Bearer top-secret' };

const body = (text: string) =>
  `${server}/body/${btoa(text).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}`;
const csvUrl = (rows: string[]) =>
  URL.createObjectURL(new Blob([['image,label', ...rows].join('\n')], { type: 'text/csv' }));

interface Seen {
  path: string;
  authorization: string | null;
}
const seen = async (): Promise<Seen[]> => (await fetch(`${server}/seen`)).json();

/** Real fetch, recording every URL asked for (to prove nothing was requested). */
function recordingFetch(log: string[]): typeof fetch {
  return (input, init) => {
    log.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
}

beforeEach(async () => {
  await fetch(`${server}/seen`, { method: 'DELETE' });
});

describe('hostile manifest URLs', () => {
  it('CSV rows on another origin, ../ or /abs are refused per row, before any request', async (ctx) => {
    const log: string[] = [];
    const rows = [
      'g0.png,0',
      `${server}/sample/1,1`,
      '../manifest.csv,0',
      '/secret.png,1',
      'sub%2F..%2F..%2Fx.png,0',
      'g3.png,1',
    ];
    const ds = await CsvImageDataset.open({
      csvUrl: csvUrl(rows),
      imageBaseUrl: images,
      requestInit: { headers: secret },
      fetch: recordingFetch(log),
    });
    expect(ds.invalidRows.map((r) => r.index)).toEqual([1, 2, 3, 4]);
    for (const i of [1, 2, 3, 4]) {
      await expect(ds.get(i)).rejects.toBeInstanceOf(UrlNotAllowedError);
      await expect(ds.get(i)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED', index: i });
    }
    await expect(ds.get(1)).rejects.toThrow(/manifest row 1.*on another origin/);
    expect((await ds.get(0)).image.length).toBe(64);
    expect((await ds.get(5)).image.length).toBe(64);
    expect(log.filter((u) => !u.startsWith('blob:')).every((u) => u.startsWith(images))).toBe(true);
    expect(await seen()).toEqual([]);
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'CSV image URLs outside imageBaseUrl',
      figures: { refused: 4, requestsOutsideBase: 0 },
    });
  });

  it('an allowed other origin is fetched without the headers; the base origin gets them', async () => {
    const opened = (imageBaseUrl: string, urlPolicy?: object) =>
      CsvImageDataset.open({
        csvUrl: csvUrl([`${server}/sample/7,1`]),
        imageBaseUrl,
        requestInit: { headers: secret },
        ...(urlPolicy ? { urlPolicy } : {}),
      });
    const other = await opened(images, { allowOrigins: [server] });
    expect(other.invalidRows).toEqual([]);
    await expect(other.get(0)).rejects.toMatchObject({ code: 'LOAD_FAILED' }); // bytes, not a PNG
    // Control: with the server as the base, the same request carries the header.
    const own = await opened(`${server}/`);
    await expect(own.get(0)).rejects.toMatchObject({ code: 'LOAD_FAILED' });
    expect(await seen()).toEqual([
      { path: '/sample/7', authorization: null },
      { path: '/sample/7', authorization: 'Bearer top-secret' },
    ]);
  });

  it('a bad urlPolicy is a TypeError naming the entry', async () => {
    await expect(
      CsvImageDataset.open({
        csvUrl: csvUrl(['g0.png,0']),
        imageBaseUrl: images,
        urlPolicy: { allowOrigins: ['not a url'] },
      }),
    ).rejects.toThrow(/urlPolicy.allowOrigins\[0\] must be an http\(s\) origin/);
  });

  it('a shard manifest naming another origin or ../ fails open() before any shard request', async (ctx) => {
    for (const url of ['http://127.0.0.1:9/evil.tar', '../up.tar', '/root.tar']) {
      const manifestUrl = body(
        JSON.stringify({
          shards: [
            { url: 'a.tar', samples: 1 },
            { url, samples: 1 },
          ],
        }),
      );
      const log: string[] = [];
      const open = WebDatasetSource.open({
        manifestUrl,
        headers: secret,
        fetch: recordingFetch(log),
      });
      await expect(open).rejects.toBeInstanceOf(UrlNotAllowedError);
      await expect(open).rejects.toThrow(/shards\[1\]\.url/);
      expect(log).toEqual([manifestUrl]);
    }
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'shard manifest URLs outside its folder',
      figures: { refused: 3, shardRequests: 0 },
    });
  });

  it('shards on an allowed origin are read without the headers; the manifest origin gets them', async () => {
    const manifestUrl = body(
      JSON.stringify({
        shards: [
          {
            url: `${location.origin}/tests/none.tar`,
            samples: 1,
            index: `${location.origin}/tests/none.idx.json`,
          },
        ],
      }),
    );
    const sent: { url: string; auth: string | null }[] = [];
    const fetchFn: typeof fetch = (input, init) => {
      sent.push({ url: String(input), auth: new Headers(init?.headers).get('Authorization') });
      return fetch(input, init);
    };
    const ds = await WebDatasetSource.open({
      manifestUrl,
      headers: secret,
      fetch: fetchFn,
      retry: { retries: 0 },
      urlPolicy: { allowOrigins: [location.origin] },
    });
    await expect(ds.get(0)).rejects.toThrow();
    await ds.close();
    expect(sent[0]).toEqual({ url: manifestUrl, auth: 'Bearer top-secret' });
    expect(sent.length).toBeGreaterThan(1);
    for (const s of sent.slice(1)) expect(s).toMatchObject({ auth: null });
    expect((await seen()).map((s) => s.authorization)).toEqual(['Bearer top-secret']);
  });
});
