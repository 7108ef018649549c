// Write-behind yields to reads, but never starves: in a cold epoch store reads never stop,
// so once half the queue's room is taken the writes go anyway (else every write after the
// queue fills is dropped and the second epoch finds little on disk).
import { flushMicrotasks } from '@medfusion/core';
import { WriteBehindQueue } from '@medfusion/core/internal';
import { describe, expect, it } from 'vitest';

describe('write-behind under reads that never stop', () => {
  it('holds writes while the queue is under half full, then writes them all', async () => {
    const written: string[] = [];
    const queue = new WriteBehindQueue(
      async (key) => {
        written.push(key);
      },
      { maxPending: 8 },
      () => {},
      () => false, // a store read is always waiting
    );
    for (let i = 0; i < 3; i++) queue.enqueue(`k${i}`, new Uint8Array(4));
    await flushMicrotasks();
    expect(written).toEqual([]); // yielding to reads
    queue.enqueue('k3', new Uint8Array(4)); // 4 of 8: half full
    await queue.flush();
    expect(written).toEqual(['k0', 'k1', 'k2', 'k3']);
    expect(queue.stats().dropped).toBe(0);
    await queue.close();
  });
});
