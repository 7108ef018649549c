import {
  type AsyncAugment,
  type Augment,
  type AugmentContext,
  AugmentError,
  DataLoader,
  fromArray,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import {
  bytes,
  cached,
  type ImageSample,
  imageSamples,
  standardRecipe,
} from './augment-fixtures.js';

describe('augment as an object with apply (runs elsewhere)', () => {
  it('gives the same batches as the in-thread function with the same recipe', async () => {
    const samples = imageSamples(9);
    const recipe = standardRecipe();
    let calls = 0;
    const remote: AsyncAugment<ImageSample> = {
      async apply(sample, ctx: AugmentContext, signal) {
        calls++;
        expect(signal).toBeInstanceOf(AbortSignal);
        const { seed, epoch, index } = ctx; // read before the first await
        await new Promise((r) => setTimeout(r, (index * 7) % 3)); // settle out of order
        return recipe(sample, { seed, epoch, index, rng: ctx.rng });
      },
    };
    const run = async (augment: Augment<ImageSample>) => {
      const loader = new DataLoader(cached(samples), {
        batchSize: 4,
        shuffle: true,
        seed: 5,
        augment,
      });
      const out: number[][] = [];
      for (let e = 0; e < 2; e++)
        for await (const b of loader) out.push(bytes(b.image!.data as Float32Array));
      return out;
    };
    const sync = await run(standardRecipe());
    expect(await run(remote)).toEqual(sync);
    expect(calls).toBe(18);
  });

  it('an augment failure ends the epoch with AugmentError naming the index, even under skip', async () => {
    for (const onError of ['throw', 'skip', { retry: { retries: 2, baseDelayMs: 0 } }] as const) {
      const loader = new DataLoader(fromArray([{ id: 0 }, { id: 1 }, { id: 2 }]), {
        batchSize: 1,
        onError,
        augment: {
          apply: async (s: { id: number }) => {
            if (s.id === 1) throw new Error('bad recipe');
            return s;
          },
        },
      });
      const seen: number[] = [];
      const error = await (async () => {
        try {
          for await (const b of loader) seen.push(b.id!.data[0]!);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(AugmentError);
      expect((error as AugmentError).code).toBe('AUGMENT_FAILED');
      expect((error as AugmentError).index).toBe(1);
      expect((error as Error).message).toMatch(/Augmenting sample 1 failed: Error: bad recipe/);
      expect(seen).toEqual([0]);
      expect(loader.quarantine?.has(1) ?? false).toBe(false);
    }
  });

  it('a sync augment that throws fails the same way', async () => {
    const loader = new DataLoader(fromArray([{ id: 0 }]), {
      augment: () => {
        throw new RangeError('nope');
      },
    });
    await expect(
      (async () => {
        for await (const _ of loader);
      })(),
    ).rejects.toThrow(AugmentError);
  });
});
