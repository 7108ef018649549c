// signUrl, when a URL another read's re-sign got is refused too: two reads of one object see
// its signed URL refused as expired at once; one of them asks the hook again, the other shares
// that answer. When the shared URL is refused as well (it expired while the second read's
// request was out, here signed already expired by the backend), the read that shared it is
// re-signed once more and completes, while the read whose own re-sign was refused fails with
// URL_EXPIRED, as a fresh URL refused must. Real s3rver behind the logging proxy, real fetch.
import { RangeReader, type SignUrl } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS } from '../fixtures-shards/fixtures.js';
import type { S3LogEntry } from '../setup/s3Server.js';
import { presign } from './s3Backend.js';

const { endpoint, bucket, backend } = inject('s3');
// A shard no other test signs already expired (the engines' suites share the store).
const objectUrl = `${endpoint}/${bucket}/${GNU_SHARDS[2]?.name}`;

/** The store's log of the requests signed with one of `urls`' signatures, in order. */
async function requestsWith(urls: string[]): Promise<S3LogEntry[]> {
  const signatures = new Set(urls.map((u) => new URL(u).searchParams.get('X-Amz-Signature')));
  const log: S3LogEntry[] = await (await fetch(`${backend}/log`)).json();
  return log.filter((e) => signatures.has(e.signature) && e.method !== 'OPTIONS');
}

describe('signUrl: a shared fresh URL refused as expired', () => {
  it('re-signs the read that shared it once more; the read whose own re-sign was refused fails with URL_EXPIRED', async () => {
    const calls: boolean[] = [];
    const signed: string[] = [];
    // The backend signs the first two URLs already expired (with lives that differ, so the two
    // URLs differ even when signed in the same second), then valid ones.
    const query = ['&expired=1&expiresIn=60', '&expired=1&expiresIn=120'];
    const hook: SignUrl = async (url, { signal, refresh }) => {
      const n = calls.push(refresh) - 1;
      const fresh = await presign(url, query[n] ?? '', signal);
      signed.push(fresh);
      return fresh;
    };
    // Two readers of one object with one hook share its signed URLs.
    const readers = [0, 1].map(() => new RangeReader({ url: objectUrl, signUrl: hook }));
    const outcomes = await Promise.allSettled(readers.map((r) => r.read(0, 16)));

    const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    const read = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(failed).toMatchObject([
      { name: 'RemoteReadError', code: 'URL_EXPIRED', status: 403, url: objectUrl },
    ]);
    // One first signature shared by both reads, one re-sign on their refusals, one more for
    // the read whose shared URL was refused too.
    expect(calls).toEqual([false, true, true]);
    // What the store saw: both reads refused with the first URL and with the re-signed one,
    // then the read that shared it served with the third.
    const log = await requestsWith(signed);
    expect(log.map((e) => [e.status, e.expired, e.issued])).toEqual([
      [403, true, true],
      [403, true, true],
      [403, true, true],
      [403, true, true],
      [206, false, true],
    ]);
    // The bytes read are the object's (fetched whole after the log was taken: a URL signed in
    // the same second carries the same signature).
    const whole = await (await fetch(await presign(objectUrl))).arrayBuffer();
    expect(read).toEqual([new Uint8Array(whole, 0, 16)]);
  });
});
