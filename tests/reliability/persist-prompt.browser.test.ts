// navigator.storage.persist() under a permission prompt nobody answers: Firefox
// asks the user, and its promise settles only when they answer (the
// reliability-web-firefox project leaves the prompt unanswered, as a user who
// ignores it would; Chromium answers at once). An OpfsStore that asks for
// persistence must open anyway, and say the answer is still pending.
import { createCachedDataset, OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { bounded, report } from './harness.js';

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

function dirName(tag: string): string {
  const d = `reliability-persist-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}

describe('a persistence prompt nobody answers', () => {
  it('never holds up OpfsStore.open(); persisted says whether it was granted once known', async (ctx) => {
    const store = new OpfsStore({ dir: dirName('store'), persist: true });
    const { ms } = await bounded('open() with persist: true', 20_000, () => store.open());
    await store.put('k', new Uint8Array([1, 2, 3]));
    expect(await store.get('k')).toEqual(new Uint8Array([1, 2, 3]));
    // true/false once the browser answered; undefined while its prompt is open
    expect([true, false, undefined]).toContain(store.persisted);
    expect((await store.usage()).persisted).toBe(store.persisted);
    report(ctx.task, {
      scenario: 'persistence prompt',
      case: 'OpfsStore open, persist: true',
      figures: { openMs: Math.round(ms), persisted: String(store.persisted) },
    });
    await store.close();
  });

  it('never holds up the first sample of createCachedDataset({ cacheDir, persist: true })', async () => {
    const data = { length: 4, get: (i: number) => new Float32Array([i]) };
    const cached = createCachedDataset(data, { cacheDir: dirName('cachedir'), persist: true });
    const { value } = await bounded('first get with persist: true', 20_000, async () =>
      cached.get(2),
    );
    expect(value).toEqual(new Float32Array([2]));
    await (cached as { close?: () => Promise<void> }).close?.();
  });
});
