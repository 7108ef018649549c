import { LoadError, MedFusionError } from '@medfusion/core';
import { throwIfAborted } from '@medfusion/core/internal';
import type { DicomSample } from './dicomOptions.js';

/**
 * The `get` of `DicomSource` and `DicomWebSource`: `load` sample `index`, then
 * map it with `transform`. A failure rejects with the abort reason when
 * `signal` is aborted, with the error itself when it already names `index`,
 * and with a `LoadError` around it otherwise.
 */
export async function loadSample<T>(
  index: number,
  signal: AbortSignal | undefined,
  load: () => Promise<DicomSample>,
  transform: ((sample: DicomSample, index: number) => T | Promise<T>) | undefined,
): Promise<T> {
  let sample: DicomSample;
  try {
    sample = await load();
  } catch (error) {
    throwIfAborted(signal);
    throw error instanceof MedFusionError && error.index === index
      ? error
      : new LoadError(index, error);
  }
  return transform ? transform(sample, index) : (sample as unknown as T);
}
