import { func } from '@medfusion/core/internal';
import { type ExposeLoaderOptions, exposeWorkerApi } from '../../workers/exposeLoader.js';
import type { WebDatasetSample } from './webDatasetOptions.js';

/**
 * What a worker does with one raw shard sample: the work a
 * `WebDatasetSource` `transform` does on the page (decode, parse, scale).
 * `signal` aborts when the page gives up on the load.
 */
export type ShardTransform<T> = (
  sample: WebDatasetSample,
  index: number,
  signal: AbortSignal,
) => T | Promise<T>;

/**
 * Serve a shard sample transform to the pool a `WebDatasetSource` was given as
 * `transformExecutor` (a `createWorkerExecutor` whose workers load this module).
 * Call it once, at the top level of a module worker. The page reads the bytes
 * (merged range reads, read-ahead) and moves each sample's member bytes here;
 * `transform` turns them into the sample, whose buffers go back to the page
 * moved, not copied (`options.transfer`). So `decodeNpy`, JSON parsing and
 * scaling of `medfusion pack --decode` shards run beside the training thread,
 * not on it.
 *
 * @example
 * // shards.worker.ts
 * import { decodeNpy } from '@medfusion/core';
 * import { exposeTransform } from '@medfusion/web';
 * exposeTransform((s) => {
 *   const { data } = decodeNpy(s.files.npy as Uint8Array, s.key);
 *   const image = new Float32Array(data.length);
 *   for (let i = 0; i < data.length; i++) image[i] = Number(data[i]) / 255;
 *   return { image, label: Number(new TextDecoder().decode(s.files.cls)) };
 * });
 */
export function exposeTransform<T>(
  transform: ShardTransform<T>,
  options: ExposeLoaderOptions = {},
): void {
  func('transform', transform, 'a function (sample, index, signal) => value');
  exposeWorkerApi((index, signal, input) => {
    const sample = input as WebDatasetSample | undefined;
    if (
      sample === null ||
      typeof sample !== 'object' ||
      typeof sample.files !== 'object' ||
      sample.files === null
    ) {
      throw new TypeError(
        "exposeTransform serves a WebDatasetSource's transformExecutor; this call carried no shard sample",
      );
    }
    return transform(sample, index, signal);
  }, options);
}
