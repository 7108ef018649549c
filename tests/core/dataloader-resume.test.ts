import { DataLoader, fromArray, type LoaderState } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const ds = (n: number) => fromArray(Array.from({ length: n }, (_, id) => ({ id })));

async function take(loader: DataLoader<{ id: number }>, batches: number): Promise<number[][]> {
  const out: number[][] = [];
  if (batches === 0) return out;
  for await (const b of loader) {
    out.push(Array.from(b.id!.data));
    if (out.length === batches) break;
  }
  return out;
}

describe('resumable loader state', () => {
  it('first part + resumed part = the uninterrupted run, batch for batch (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 0, max: 40 }),
        async (n, batchSize, shuffle, dropLast, seed, stopAfter) => {
          const opts = { batchSize, shuffle, dropLast, seed };
          const reference = new DataLoader(ds(n), opts);
          // an uninterrupted run over three epochs, batch by batch
          const full: number[][] = [];
          for (let e = 0; e < 3; e++)
            full.push(...(await take(reference, Number.POSITIVE_INFINITY)));
          const first = new DataLoader(ds(n), opts);
          const part: number[][] = [];
          while (part.length < Math.min(stopAfter, full.length)) {
            part.push(...(await take(first, Math.min(stopAfter, full.length) - part.length)));
          }
          const saved: LoaderState = JSON.parse(JSON.stringify(first.state()));
          expect(Object.keys(saved).sort()).toEqual(['cursor', 'epoch', 'seed']);
          const resumed = new DataLoader(ds(n), {
            batchSize,
            shuffle,
            dropLast,
            resumeFrom: saved,
          });
          const rest: number[][] = [];
          while (resumed.epoch < 3) rest.push(...(await take(resumed, Number.POSITIVE_INFINITY)));
          expect([...part, ...rest]).toEqual(full);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a resumed loader yields exactly the remaining batches of that epoch, then the next epochs', async () => {
    const loader = new DataLoader(ds(10), { batchSize: 3, shuffle: true, seed: 11 });
    const order0 = Array.from(loader.orderOf(4));
    const resumed = new DataLoader(ds(10), {
      batchSize: 3,
      shuffle: true,
      resumeFrom: { seed: 11, epoch: 4, cursor: 2 },
    });
    expect(resumed.seed).toBe(11);
    expect(await take(resumed, Number.POSITIVE_INFINITY)).toEqual([
      order0.slice(6, 9),
      order0.slice(9),
    ]);
    expect(resumed.epoch).toBe(5);
    expect((await take(resumed, Number.POSITIVE_INFINITY)).flat()).toEqual(
      Array.from(loader.orderOf(5)),
    );
  });

  it('a state taken after the last batch of an epoch resumes at the next epoch', async () => {
    const resumed = new DataLoader(ds(4), {
      batchSize: 2,
      resumeFrom: { seed: 0, epoch: 0, cursor: 2 },
    });
    expect(resumed.state()).toEqual({ seed: 0, epoch: 1, cursor: 0 });
    expect(await take(resumed, 5)).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it('an empty data set resumes at the epoch it was in and passes through empty epochs', async () => {
    const empty = new DataLoader(ds(0), {
      batchSize: 4,
      resumeFrom: { seed: 0, epoch: 2, cursor: 0 },
    });
    expect(empty.state()).toEqual({ seed: 0, epoch: 2, cursor: 0 });
    expect(await take(empty, Number.POSITIVE_INFINITY)).toEqual([]);
    expect(empty.epoch).toBe(3);
  });

  it('rejects a state that does not fit, naming the field and value', () => {
    const make = (resumeFrom: unknown, seed?: number) =>
      new DataLoader(ds(10), {
        batchSize: 3,
        resumeFrom: resumeFrom as LoaderState,
        ...(seed === undefined ? {} : { seed }),
      });
    expect(() => make({ seed: 0, epoch: 0, cursor: 5 })).toThrow(
      /resumeFrom.cursor 5 is past the 4 batches/,
    );
    expect(() => make({ seed: 0, epoch: -1, cursor: 0 })).toThrow(
      /resumeFrom.epoch must be a non-negative integer, got -1/,
    );
    expect(() => make({ seed: 2, epoch: 0, cursor: 0 }, 3)).toThrow(
      /resumeFrom.seed 2 differs from seed 3/,
    );
    expect(() => make('x')).toThrow(TypeError);
  });
});
