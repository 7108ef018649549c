import { flushMicrotasks, fromLoader, InThreadExecutor } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('InThreadExecutor, the default executor', () => {
  it('runs dataset.get with the signal and passes results and errors through', async () => {
    const seen: unknown[] = [];
    const ex = new InThreadExecutor(
      fromLoader(5, (i, signal) => {
        seen.push(signal);
        if (i === 4) throw new Error('bad sample');
        return i * 2;
      }),
    );
    const ctrl = new AbortController();
    expect(await ex.run(3, ctrl.signal)).toBe(6);
    expect(seen[0]).toBe(ctrl.signal);
    await expect(ex.run(4, ctrl.signal)).rejects.toThrow('bad sample');
  });

  it('rejects as soon as the signal aborts, even when the loader ignores it', async () => {
    const ex = new InThreadExecutor(fromLoader(5, () => new Promise<number>(() => {})));
    const ctrl = new AbortController();
    const run = ex.run(1, ctrl.signal).catch((e: unknown) => e);
    await flushMicrotasks();
    const reason = new Error('stop');
    ctrl.abort(reason);
    expect(await run).toBe(reason);
    const already = new AbortController();
    already.abort(reason);
    await expect(ex.run(2, already.signal)).rejects.toBe(reason);
  });

  it('with settleOnAbort: false it leaves bounding the load to its caller (the engine)', async () => {
    const ex = new InThreadExecutor(
      fromLoader(5, () => new Promise<number>(() => {})),
      {
        settleOnAbort: false,
      },
    );
    const ctrl = new AbortController();
    let settled = false;
    ex.run(1, ctrl.signal).then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    ctrl.abort();
    await flushMicrotasks();
    expect(settled).toBe(false);
  });
});
