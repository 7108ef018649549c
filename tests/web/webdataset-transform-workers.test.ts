// WebDatasetSource's transformExecutor: the page reads the shards (merged range reads, read-ahead),
// a pool of Web Workers running exposeTransform turns each sample's bytes into the sample. What a
// user of `medfusion pack --decode` shards needs to keep decoding off the training thread.
import { shardPlan } from '@medfusion/core';
import { createWorkerExecutor, WebDatasetSource, type WorkerExecutor } from '@medfusion/web';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles, sampleKey } from '../fixtures-shards/fixtures.js';
import { COLD_START } from '../setup/coldStart.js';
import { shardTransform, type TransformedSample } from './fixtures/shardTransform.js';

const { nginx } = inject('shardServers');
const urls = GNU_SHARDS.map((s) => `${nginx}${s.name}`);
const starts = [0, 24, 44];
const WAIT = { timeout: 30_000 };

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function pool(name = 'plain'): WorkerExecutor<TransformedSample> {
  const executor = createWorkerExecutor<TransformedSample>({
    worker: () =>
      new Worker(new URL('./fixtures/shard-transform.worker.ts', import.meta.url), {
        type: 'module',
        name,
      }),
    poolSize: 2,
    ...COLD_START,
    callTimeoutMs: 20_000,
  });
  closers.push(() => executor.close());
  return executor;
}

/** Where sample `index` lives: shard and position, from the fixture's layout. */
function whereIs(index: number): [number, number] {
  const shard = index < 24 ? 0 : index < 44 ? 1 : 2;
  return [shard, index - (starts[shard] as number)];
}

describe('WebDatasetSource with a transformExecutor', () => {
  it(
    'runs the transform in the workers on one moved buffer per sample, the same samples as in-thread',
    async () => {
      const executor = pool();
      const source = await WebDatasetSource.open({
        urls,
        lookahead: 16,
        transformExecutor: executor,
      });
      closers.push(() => source.close());
      const inThread = await WebDatasetSource.open({
        urls,
        lookahead: 16,
        transform: shardTransform,
      });
      closers.push(() => inThread.close());
      const plan = shardPlan({ shardSizes: [...source.shardSizes], seed: 3, windowShards: 2 });
      source.setPlan(plan);
      inThread.setPlan(plan);
      for (const index of plan) {
        const got = await source.get(index);
        const [shard, i] = whereIs(index);
        const files = sampleFiles(shard, i);
        const png = files.png as Uint8Array;
        expect(got.key.endsWith(sampleKey(shard, i))).toBe(true);
        expect(got.inWorker).toBe(true);
        expect(got.image).toBeInstanceOf(Float32Array);
        expect(Array.from(got.image)).toEqual(Array.from(png, (v) => Math.fround(v / 255)));
        expect(got.label).toBe(Number(new TextDecoder().decode(files.cls)));
        expect(got.fields).toEqual(JSON.parse(new TextDecoder().decode(files.json)));
        // the members reached the worker as views of one buffer of this sample's own bytes
        // (tar headers and padding between them), not the merged read of many samples
        expect(got.memberBuffers).toBe(1);
        const members = png.length + (files.cls?.length ?? 0) + (files.json?.length ?? 0);
        expect(got.bufferBytes).toBeGreaterThanOrEqual(members);
        expect(got.bufferBytes).toBeLessThan(members + 4 * 512);
        const here = await inThread.get(index);
        expect(here.inWorker).toBe(false);
        expect({ ...got, inWorker: 0, memberBuffers: 0, bufferBytes: 0 }).toEqual({
          ...here,
          inWorker: 0,
          memberBuffers: 0,
          bufferBytes: 0,
        });
      }
      expect(executor.stats().liveWorkers).toBe(2);
      // the reads stayed merged on the page: far fewer requests than samples
      expect(source.stats().rangeRequests).toBeLessThan(plan.length / 2);
    },
    WAIT.timeout * 2,
  );

  it(
    'a worker that dies holding a sample fails that load with WORKER_CRASHED, the others load',
    async () => {
      const executor = pool('crash-at-5');
      const source = await WebDatasetSource.open({ urls, transformExecutor: executor });
      closers.push(() => source.close());
      const failed = await source.get(5).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toMatchObject({
        name: 'WorkerCrashedError',
        code: 'WORKER_CRASHED',
        index: 5,
      });
      expect(String((failed as Error).message)).toContain('moved');
      for (const index of [4, 30, 60]) expect((await source.get(index)).index).toBe(index);
    },
    WAIT.timeout * 2,
  );

  it('refuses a transform beside it, and an executor without run', async () => {
    const executor = pool();
    await expect(
      WebDatasetSource.open({ urls, transform: shardTransform, transformExecutor: executor }),
    ).rejects.toThrow(/transform or transformExecutor, not both/);
    await expect(
      WebDatasetSource.open({
        urls,
        transformExecutor: {} as unknown as WorkerExecutor<TransformedSample>,
      }),
    ).rejects.toThrow(/transformExecutor must be a worker pool/);
  });
});
