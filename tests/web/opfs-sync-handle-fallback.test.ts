// OpfsStore picks its file backend by what works, not by the user agent: sync access handles
// where one opens, the async File System API where the method is missing or rejects
// (WebKitGTK offers createSyncAccessHandle and rejects it with NotSupportedError). Runs in every
// engine: in Chromium and Firefox the sync path is taken, in WebKitGTK the fallback.
import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSyncHandles } from './syncHandleProbe';

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

describe('OpfsStore backend choice', () => {
  it('uses sync access handles where one opens, else the async path, and keeps data either way', async () => {
    const probe = await probeSyncHandles();
    const dir = `test-opfs-sync-fallback-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    const a = new OpfsStore({ dir });
    await a.put('k', new Uint8Array([1, 2, 3]));
    expect((await a.usage()).backend).toBe(probe.opens ? 'sync' : 'async');
    await a.close();
    const b = new OpfsStore({ dir });
    expect(await b.get('k')).toEqual(new Uint8Array([1, 2, 3]));
    await b.close();
    if (!probe.opens && probe.offered) expect(probe.error).toMatch(/^NotSupportedError/);
  });
});
