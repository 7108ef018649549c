// StallWatchdog: a watched promise that makes no progress for stallMs rejects with a StallError
// (code STALLED) naming the stage it was in; progress keeps it alive; it settles as the work does.
import { AbortError, ManualClock } from '@medfusion/core';
import { deserializeError, serializeError } from '@medfusion/core/internal';
import { StallError, StallWatchdog } from '@medfusion/web';
import { describe, expect, it } from 'vitest';

const never = new Promise<never>(() => {});

describe('StallWatchdog', () => {
  it('rejects with StallError (STALLED) naming the last stage once no progress came for stallMs', async () => {
    const clock = new ManualClock();
    const dog = new StallWatchdog({ stallMs: 1000, stage: 'opening', clock });
    const watched = dog.watch(never);
    const failed = watched.catch((e: unknown) => e);
    await clock.advance(600);
    dog.progress('building the pipeline');
    await clock.advance(600); // 600 ms since the progress: alive
    await clock.advance(300);
    dog.progress();
    await clock.advance(999);
    await clock.advance(1);
    const error = (await failed) as StallError;
    expect(error).toBeInstanceOf(StallError);
    expect(error.code).toBe('STALLED');
    expect(error.stage).toBe('building the pipeline');
    expect(error.idleMs).toBe(1000);
    expect(error.message).toBe('no progress for 1000 ms while building the pipeline');
    // the class survives a worker boundary, as every MedFusionError
    expect(deserializeError(serializeError(error))).toBeInstanceOf(StallError);
  });

  it('settles as the work does, and stops its timer', async () => {
    const clock = new ManualClock();
    const dog = new StallWatchdog({ stallMs: 1000, clock });
    await expect(dog.watch(Promise.resolve(7))).resolves.toBe(7);
    await expect(dog.watch(Promise.reject(new Error('own')))).rejects.toThrow('own');
    expect(clock.pending).toBe(0);
  });

  it('rejects with the reason when its signal aborts; refuses bad options', async () => {
    const ac = new AbortController();
    const dog = new StallWatchdog({ stallMs: 60_000, signal: ac.signal });
    const watched = dog.watch(never);
    ac.abort(new AbortError('stopped'));
    await expect(watched).rejects.toThrow('stopped');
    expect(() => new StallWatchdog({ stallMs: 0 })).toThrow(RangeError);
    expect(() => new StallWatchdog({ stallMs: 10, stage: '' })).toThrow(RangeError);
  });
});
