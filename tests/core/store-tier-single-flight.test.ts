import { type Dataset, MemoryStore, PersistentTierDataset } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** Loads that settle on command and reject with the signal's reason when it aborts. */
function abortable(length: number) {
  const loads: { index: number; signal: AbortSignal | undefined; resolve: (v: number) => void }[] =
    [];
  const source: Dataset<number> = {
    length,
    get(index, opts) {
      const signal = opts?.signal;
      return new Promise<number>((resolve, reject) => {
        loads.push({ index, signal, resolve });
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
  return { source, loads };
}

/** A store whose reads answer at once with nothing: every read goes to the source. */
const emptyStore = () => new MemoryStore();

describe('the disk tier shares a load the way every tier does', () => {
  it('a caller that aborts leaves alone; the load goes on for the others', async () => {
    const { source, loads } = abortable(4);
    const tier = new PersistentTierDataset(source, { store: emptyStore(), fingerprint: 't' });
    const first = new AbortController();
    const a = tier.get(2, { signal: first.signal });
    const b = tier.get(2);
    await expect.poll(() => loads.length).toBe(1);
    const reason = new Error('first reader left');
    first.abort(reason);
    await expect(a).rejects.toBe(reason);
    expect(loads[0]?.signal?.aborted).toBe(false);
    loads[0]?.resolve(20);
    expect(await b).toBe(20);
    expect(loads).toHaveLength(1);
    await tier.close();
  });

  it('the load stops once every caller left, and the next caller starts afresh', async () => {
    const { source, loads } = abortable(4);
    const tier = new PersistentTierDataset(source, { store: emptyStore(), fingerprint: 't' });
    const x = new AbortController();
    const y = new AbortController();
    const a = tier.get(1, { signal: x.signal });
    const b = tier.get(1, { signal: y.signal });
    await expect.poll(() => loads.length).toBe(1);
    x.abort();
    y.abort();
    await expect(a).rejects.toMatchObject({ name: 'AbortError' });
    await expect(b).rejects.toMatchObject({ name: 'AbortError' });
    expect(loads[0]?.signal?.aborted).toBe(true);
    const again = tier.get(1);
    await expect.poll(() => loads.length).toBe(2);
    loads[1]?.resolve(10);
    expect(await again).toBe(10);
    await tier.close();
  });
});
