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

  it('rejects bad keys and values without touching the disk', async () => {
    const store = new OpfsStore({ dir });
    await expect(store.put('', new Uint8Array(1))).rejects.toThrow(
      /key must be a non-empty string/,
    );
    await expect(store.get(3 as unknown as string)).rejects.toThrow(/key must be a string, got 3/);
    await expect(store.put('k', new Float32Array(2) as unknown as Uint8Array)).rejects.toThrow(
      /value must be a Uint8Array, got \[object Float32Array\]/,
    );
    await expect(store.put('k', 'bytes' as unknown as Uint8Array)).rejects.toThrow(TypeError);
    await store.put('ok', new Uint8Array([1]));
    expect(await store.keys()).toEqual(['ok']);
    await store.close();
    await expect(store.get('ok')).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
