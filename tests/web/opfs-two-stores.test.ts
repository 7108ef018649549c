import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

const value = (tag: number, i: number) => new Uint8Array(3000).fill((tag * 50 + i) & 0xff);

describe('two OpfsStores on one dir (two tabs)', () => {
  it('a reader sees evictions made by another store as misses, not stale bytes', async () => {
    const dir = `test-opfs-two-evict-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    const opts = { dir, maxBytes: 20_000, segmentBytes: 6_100 };
    const writer = new OpfsStore(opts);
    const reader = new OpfsStore(opts);
    for (let i = 0; i < 6; i++) await writer.put(`k${i}`, value(3, i));
    expect(await reader.get('k0')).toEqual(value(3, 0));
    for (let i = 6; i < 20; i++) await writer.put(`k${i}`, value(3, i));
    expect(await writer.has('k0')).toBe(false);
    expect(await reader.get('k0')).toBeUndefined();
    expect(await reader.get('k19')).toEqual(value(3, 19));
    await writer.close();
    await reader.close();
  });
});
