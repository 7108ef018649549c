import { WriteBehindQueue } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';

function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('WriteBehindQueue', () => {
  it('never blocks the caller: a full queue drops writes and counts them', async () => {
    const gates: ReturnType<typeof deferred>[] = [];
    const written: string[] = [];
    const q = new WriteBehindQueue(
      (key) => {
        const d = deferred();
        gates.push(d);
        return d.promise.then(() => {
          written.push(key);
        });
      },
      { maxPending: 3, concurrency: 1 },
    );
    expect(q.enqueue('a', new Uint8Array(1))).toBe(true);
    expect(q.enqueue('b', new Uint8Array(1))).toBe(true);
    expect(q.enqueue('c', new Uint8Array(1))).toBe(true);
    expect(q.enqueue('d', new Uint8Array(1))).toBe(false); // full
    expect(q.enqueue('a', new Uint8Array(1))).toBe(false); // already queued
    expect(gates.length).toBe(1); // concurrency 1
    expect(q.stats()).toMatchObject({ pending: 3, dropped: 2, written: 0 });
    const flushed = q.flush();
    for (let i = 0; i < 3; i++) {
      gates[i]!.resolve();
      await new Promise((r) => setTimeout(r, 0));
    }
    await flushed;
    expect(written).toEqual(['a', 'b', 'c']);
    expect(q.stats()).toMatchObject({ pending: 0, pendingBytes: 0, written: 3 });
  });

  it('bounds pending bytes, reports failures and refuses writes after close', async () => {
    const errors: string[] = [];
    const q = new WriteBehindQueue(
      async (key) => {
        if (key === 'bad') throw new Error('disk full');
      },
      { maxBytes: 10 },
      (err, key) => errors.push(`${key}:${(err as Error).message}`),
    );
    expect(q.enqueue('big', new Uint8Array(11))).toBe(false);
    expect(q.enqueue('bad', new Uint8Array(5))).toBe(true);
    expect(q.enqueue('ok', new Uint8Array(5))).toBe(true);
    await q.close();
    expect(errors).toEqual(['bad:disk full']);
    expect(q.stats()).toMatchObject({ written: 1, failed: 1, dropped: 1 });
    expect(q.enqueue('late', new Uint8Array(1))).toBe(false);
  });

  it('validates its bounds', () => {
    expect(() => new WriteBehindQueue(async () => {}, { maxPending: 0 })).toThrow(
      /writeQueue.maxPending/,
    );
    expect(() => new WriteBehindQueue(async () => {}, { concurrency: 1.5 })).toThrow(RangeError);
  });
});
