import {
  createCachedDataset,
  DataLoader,
  type Dataset,
  type Executor,
  InThreadExecutor,
  MemoryStore,
  type PlanAware,
  type RunOptions,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

type Sample = { x: Float32Array; label: number };

/** A source that records the plans it is given (as remote shards do, to merge reads). */
function planAwareSource(length: number) {
  const plans: number[][] = [];
  const source: Dataset<Sample> & PlanAware = {
    length,
    get: (i) => ({ x: new Float32Array([i]), label: i % 2 }),
    setPlan: (order) => {
      plans.push(Array.from(order));
    },
  };
  return { source, plans };
}

/** An executor of our own (the public interface only) that records the calls it runs. */
class RecordingExecutor implements Executor<Sample> {
  readonly runs: number[] = [];
  constructor(private readonly source: Dataset<Sample>) {}
  async run(index: number, signal: AbortSignal, _input?: unknown, options?: RunOptions) {
    this.runs.push(index);
    return this.source.get(index, { signal, ...options });
  }
}

async function readEpochs(ds: Dataset<Sample> & PlanAware, epochs: number) {
  const loader = new DataLoader(ds, { batchSize: 5, shuffle: true, seed: 11 });
  for (let e = 0; e < epochs; e++) {
    for await (const _ of loader) {
      // read one epoch
    }
  }
  return Array.from({ length: epochs }, (_, e) => Array.from(loader.orderOf(e)));
}

describe('with a store and an executor, the plan still reaches the source', () => {
  const executors = {
    InThreadExecutor: (s: Dataset<Sample>) => new InThreadExecutor(s),
    'an Executor of our own': (s: Dataset<Sample>) => new RecordingExecutor(s),
  };
  for (const [name, make] of Object.entries(executors)) {
    for (const cacheType of ['lru', 'both'] as const) {
      it(`${name}, cacheType '${cacheType}': the source sees each epoch's order`, async () => {
        const { source, plans } = planAwareSource(20);
        const executor = make(source);
        const ds = createCachedDataset(source, {
          cacheType,
          cacheSize: 4,
          prefetchSize: 3,
          numWorkers: 2,
          executor,
          store: new MemoryStore(),
          fingerprint: 'plan-executor@1',
        });
        const orders = await readEpochs(ds, 2);
        expect(plans).toEqual(orders);
        if (executor instanceof RecordingExecutor) expect(executor.runs.length).toBeGreaterThan(0);
        await ds.close();
      });
    }
  }

  it('the same as without a store (where the engine forwards it)', async () => {
    const { source, plans } = planAwareSource(20);
    const ds = createCachedDataset(source, {
      cacheType: 'both',
      cacheSize: 4,
      executor: new InThreadExecutor(source),
    });
    const orders = await readEpochs(ds, 2);
    expect(plans).toEqual(orders);
    await ds.close();
  });
});
