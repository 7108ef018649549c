import { ParquetSource, type SignUrl } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { PARQUET, parquetRow } from '../fixtures-shards/fixtures.js';
import type { S3LogEntry } from '../setup/s3Server.js';
import { presign } from './s3Backend.js';

// The Parquet fixture in the private bucket of tests/setup/s3Server.ts (s3rver behind a
// logging proxy, a backend presigning with the AWS SDK).
const { endpoint, bucket, backend } = inject('s3');
const url = `${endpoint}/${bucket}/${PARQUET.name}`;

describe('ParquetSource: signUrl over a private S3 bucket', () => {
  it('reads every row over range requests to the URL the backend signed, signed once', async () => {
    const seen = ((await (await fetch(`${backend}/log`)).json()) as S3LogEntry[]).length;
    const calls: string[] = [];
    const signUrl: SignUrl = async (object, { signal }) => {
      calls.push(object);
      // An hour, not the server's 5 s: 'signed once' is about the source, and a Firefox read of
      // every row beside the other engines outlived a 5 s URL in CI (it was rightly re-signed).
      return presign(object, '&expiresIn=3600', signal);
    };
    const table = await ParquetSource.open({
      url,
      columns: { image: 'image', tabular: ['age', 'bmi'], label: 'label' },
      signUrl,
    });
    expect(table.length).toBe(PARQUET.rows);
    for (let r = 0; r < PARQUET.rows; r++) {
      const got = await table.get(r);
      expect(got.image).toEqual(parquetRow(r).image);
      expect(got.label).toBe(parquetRow(r).label);
    }
    table.close();
    expect(calls).toEqual([url]);
    const log = ((await (await fetch(`${backend}/log`)).json()) as S3LogEntry[])
      .slice(seen)
      .filter((e) => e.path === `/${bucket}/${PARQUET.name}`);
    expect(log.length).toBeGreaterThan(1);
    for (const e of log) {
      expect([e.method, e.status, e.issued, e.expired]).toEqual(['GET', 206, true, false]);
    }
  });
});
