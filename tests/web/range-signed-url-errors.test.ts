import { RangeReader } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';

const { nginx } = inject('shardServers');

describe("RangeReader: errors never show a presigned URL's signature", () => {
  it('names a presigned URL without its query string', async () => {
    const url = `${nginx}missing.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=0123abcd`;
    const error = await new RangeReader({ url, retry: { retries: 0 } })
      .read(0, 10)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'HTTP_ERROR', status: 404, url: `${nginx}missing.tar` });
    expect(String(error)).toContain(`${nginx}missing.tar`);
    expect(String(error)).not.toMatch(/AKIAEXAMPLE|0123abcd|X-Amz/);
  });

  it('keeps a query string that carries no credential', async () => {
    const url = `${nginx}missing.tar?version=2`;
    const error = await new RangeReader({ url, retry: { retries: 0 } })
      .read(0, 10)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'HTTP_ERROR', url });
  });
});
