import { CsvImageDataset, type SignUrl } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import type { S3LogEntry } from '../setup/s3Server.js';
import { presign } from './s3Backend.js';

// The CSV + PNG fixtures of csv-image-dataset.test.ts in the private bucket of
// tests/setup/s3Server.ts (s3rver behind a logging proxy, a backend presigning with the AWS SDK).
const { endpoint, bucket, backend } = inject('s3');
const base = `${endpoint}/${bucket}/csv-images/`;

describe('CsvImageDataset: signUrl over a private S3 bucket', () => {
  it('fetches the manifest and every image from URLs the backend signed, one hook call per object', async () => {
    const seen = (await (await fetch(`${backend}/log`)).json()).length as number;
    const calls: string[] = [];
    // URLs that live an hour: this test counts hook calls, and the suite's default life (5 s)
    // ran out under load in Firefox before the second read of g0.png (a re-sign, one call
    // more). Expiry and re-signing are s3-presigned.test.ts's cases.
    const signUrl: SignUrl = async (url, { signal }) => {
      calls.push(url);
      return presign(url, '&expiresIn=3600', signal);
    };
    const ds = await CsvImageDataset.open({
      csvUrl: `${base}manifest.csv`,
      imageBaseUrl: `${base}images/`,
      signUrl,
    });
    expect(ds.length).toBe(5);
    for (let i = 0; i < ds.length; i++) {
      const s = await ds.get(i);
      expect(s.image.length).toBe(64);
      if (i === 0) expect(s.image[1]).toBeCloseTo(3 / 255, 5); // g0.png pixel (1, 0)
    }
    await ds.get(0); // a second read of an object signs nothing new
    expect(calls).toEqual([`${base}manifest.csv`, ...[0, 1, 2, 3, 4].map((i) => ds.imageUrl(i))]);
    const log = ((await (await fetch(`${backend}/log`)).json()) as S3LogEntry[])
      .slice(seen)
      .filter((e) => e.path.startsWith(`/${bucket}/csv-images/`));
    expect(log.length).toBe(7); // the second read of g0.png too
    for (const e of log) {
      // 200 each time: no browser cache (no 304), which would keep the signed URL.
      expect([e.method, e.status, e.issued, e.expired]).toEqual(['GET', 200, true, false]);
    }
  });
});
