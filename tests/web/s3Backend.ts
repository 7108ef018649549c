// The S3 tests' stand-in app backend (tests/setup/s3Server.ts), as a page asks it.
import { inject } from 'vitest';

/**
 * A presigned URL of `url` from the backend; `query` adds to the request (`&expired=1`,
 * `&expiresIn=60`). Throws when the backend refuses.
 */
export async function presign(url: string, query = '', signal?: AbortSignal): Promise<string> {
  const { backend } = inject('s3');
  const res = await fetch(`${backend}/sign?url=${encodeURIComponent(url)}${query}`, { signal });
  if (!res.ok) throw new Error(`backend answered ${res.status}`);
  return res.text();
}
