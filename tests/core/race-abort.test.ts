import { AbortError } from '@medfusion/core';
import { raceAbort } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';

describe('raceAbort', () => {
  it('settles with the promise when the signal stays quiet, and removes its listener', async () => {
    const ctrl = new AbortController();
    let listeners = 0;
    const signal = ctrl.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...a: Parameters<typeof add>) => {
      listeners++;
      add(...a);
    }) as typeof add;
    signal.removeEventListener = ((...a: Parameters<typeof remove>) => {
      listeners--;
      remove(...a);
    }) as typeof remove;
    await expect(raceAbort(Promise.resolve(7), signal)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error('boom')), signal)).rejects.toThrow('boom');
    expect(listeners).toBe(0);
  });

  it("rejects with the signal's reason as soon as it aborts, or at once when already aborted", async () => {
    const ctrl = new AbortController();
    const never = new Promise<number>(() => {});
    const pending = raceAbort(never, ctrl.signal);
    const reason = new Error('stop');
    ctrl.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(raceAbort(never, ctrl.signal)).rejects.toBe(reason);
    const bare = { aborted: true, addEventListener() {}, removeEventListener() {} };
    await expect(raceAbort(never, bare as unknown as AbortSignal)).rejects.toBeInstanceOf(
      AbortError,
    );
  });
});
