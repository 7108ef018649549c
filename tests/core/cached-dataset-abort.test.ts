import type { Dataset } from '@medfusion/core';
import { CachedDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** Loads that settle on command and reject with the signal's reason when it aborts. */
function abortable(length: number) {
  const loads: {
    index: number;
    signal: AbortSignal | undefined;
    resolve: (v: string) => void;
  }[] = [];
  const ds: Dataset<string> = {
    length,
    get(index, opts) {
      const signal = opts?.signal;
      return new Promise<string>((resolve, reject) => {
        loads.push({ index, signal, resolve });
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
  return { ds, loads };
}

describe('CachedDataset passes abort signals on', () => {
  it('aborts the load when its only caller aborts, and rejects that caller with the reason', async () => {
    const { ds, loads } = abortable(3);
    const cached = new CachedDataset(ds);
    const controller = new AbortController();
    const wait = cached.get(1, { signal: controller.signal });
    expect(loads[0]?.signal?.aborted).toBe(false);
    const reason = new Error('user left the page');
    controller.abort(reason);
    await expect(wait).rejects.toBe(reason);
    expect(loads[0]?.signal?.aborted).toBe(true);
    expect(cached.getCacheStats()).toMatchObject({ inFlight: 0, size: 0 });
    // A new caller starts a fresh load instead of joining the aborted one.
    const again = cached.get(1);
    expect(loads).toHaveLength(2);
    loads[1]?.resolve('one');
    expect(await again).toBe('one');
  });

  it('keeps a shared load alive while another caller still waits', async () => {
    const { ds, loads } = abortable(3);
    const cached = new CachedDataset(ds);
    const a = new AbortController();
    const b = new AbortController();
    const first = cached.get(2, { signal: a.signal });
    const second = cached.get(2, { signal: b.signal });
    const third = cached.get(2);
    a.abort();
    await expect(first).rejects.toMatchObject({ name: 'AbortError' });
    expect(loads).toHaveLength(1);
    expect(loads[0]?.signal?.aborted).toBe(false);
    loads[0]?.resolve('two');
    expect(await second).toBe('two');
    expect(await third).toBe('two');
    expect(cached.get(2)).toBe('two');
  });

  it('never aborts a load started without a signal', async () => {
    const { ds, loads } = abortable(1);
    const cached = new CachedDataset(ds);
    const plain = cached.get(0);
    const c = new AbortController();
    const joined = cached.get(0, { signal: c.signal });
    c.abort();
    await expect(joined).rejects.toMatchObject({ name: 'AbortError' });
    expect(loads[0]?.signal).toBeUndefined();
    loads[0]?.resolve('zero');
    expect(await plain).toBe('zero');
  });

  it('rejects at once, without loading, when the signal is already aborted', async () => {
    const { ds, loads } = abortable(1);
    const cached = new CachedDataset(ds);
    const reason = new Error('already gone');
    await expect(cached.get(0, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(loads).toHaveLength(0);
  });
});
