import { DataLoader, fromArray, type PlanAware, shardPlan } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const shardSizes = [5, 7, 4, 6];
const length = shardSizes.reduce((a, b) => a + b, 0);

function planRecorder() {
  const plans: number[][] = [];
  const base = fromArray(
    Array.from({ length }, (_, i) => ({ x: new Float32Array([i]), label: i })),
  );
  const ds: typeof base & PlanAware = {
    length: base.length,
    get: (i) => base.get(i),
    setPlan: (order) => {
      plans.push(Array.from(order));
    },
  };
  return { ds, plans };
}

async function readEpoch(loader: DataLoader): Promise<number[]> {
  const seen: number[] = [];
  for await (const batch of loader) {
    const labels = batch.label?.data;
    if (!labels) throw new Error('batch has no label field');
    seen.push(...Array.from(labels));
  }
  return seen;
}

describe('DataLoader sampler', () => {
  it('reads each epoch in the sampler order and hands that order to the dataset', async () => {
    const { ds, plans } = planRecorder();
    const sampler = (epoch: number, seed: number) =>
      shardPlan({ shardSizes, seed, epoch, windowShards: 2 });
    const loader = new DataLoader(ds, { batchSize: 4, seed: 3, sampler });
    const first = await readEpoch(loader);
    const second = await readEpoch(loader);
    expect(first).toEqual(Array.from(sampler(0, 3)));
    expect(second).toEqual(Array.from(sampler(1, 3)));
    expect(first).not.toEqual(second);
    expect(plans).toEqual([first, second]);
    expect([...first].sort((a, b) => a - b)).toEqual(Array.from({ length }, (_, i) => i));
  });

  it('resumes mid-epoch into the same sampler order', async () => {
    const sampler = (epoch: number, seed: number) => shardPlan({ shardSizes, seed, epoch });
    const whole = await readEpoch(new DataLoader(planRecorder().ds, { batchSize: 5, sampler }));
    const a = new DataLoader(planRecorder().ds, { batchSize: 5, sampler });
    const head: number[] = [];
    for await (const batch of a) {
      head.push(...Array.from(batch.label?.data ?? []));
      if (head.length >= 10) break;
    }
    const b = new DataLoader(planRecorder().ds, { batchSize: 5, sampler, resumeFrom: a.state() });
    expect([...head, ...(await readEpoch(b))]).toEqual(whole);
  });

  it('rejects a sampler that is not a function, goes with shuffle, or returns a bad order', async () => {
    const { ds } = planRecorder();
    expect(() => new DataLoader(ds, { sampler: 5 as never })).toThrow(
      /sampler must be a function, got 5/,
    );
    expect(() => new DataLoader(ds, { sampler: () => [], shuffle: true })).toThrow(TypeError);
    const short = new DataLoader(ds, { sampler: () => [0, 1] });
    await expect(readEpoch(short)).rejects.toThrow(/sampler\(0\) returned 2 indices/);
    const outOfRange = new DataLoader(ds, {
      sampler: () => Array.from({ length }, (_, i) => (i === 3 ? length : i)),
    });
    await expect(readEpoch(outOfRange)).rejects.toThrow(
      new RegExp(`sampler\\(0\\)\\[3\\] ${length} is out of range`),
    );
  });
});
