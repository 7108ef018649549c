import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dir = `test-opfs-bad-${Math.random().toString(36).slice(2)}`;
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(dir, { recursive: true }).catch(() => {});
});

describe('OpfsStore bad input', () => {
  it('names the bad option in a TypeError or RangeError', () => {
    expect(() => new OpfsStore({ dir: '' })).toThrow(RangeError);
    expect(() => new OpfsStore({ dir: 5 as unknown as string })).toThrow(
      /dir must be a non-empty string, got 5/,
    );
    expect(() => new OpfsStore({ dir, maxBytes: -1 })).toThrow(/maxBytes .*-1/);
    expect(() => new OpfsStore({ dir, maxBytes: Number.NaN })).toThrow(RangeError);
    expect(() => new OpfsStore({ dir, maxBytes: '1' as unknown as number })).toThrow(TypeError);
    expect(() => new OpfsStore({ dir, segmentBytes: 0 })).toThrow(/segmentBytes/);
    expect(() => new OpfsStore({ dir, callTimeoutMs: -5 })).toThrow(/callTimeoutMs/);
    expect(() => new OpfsStore({ dir, backend: 'sync' as 'auto' })).toThrow(/backend/);
  });
});
