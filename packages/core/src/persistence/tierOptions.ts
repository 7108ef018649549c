import type { Dataset } from '../dataset/Dataset.js';
import { badRange, badType, nonEmptyString, showValue, withDefault } from '../util/validate.js';
import { decodeSample } from './decodeSample.js';
import { encodeSample } from './encodeSample.js';

// The disk tier's `fingerprint` and `codec` options: their types and their one check.

/** Turns samples into bytes for the disk tier and back. */
export interface SampleCodec<T> {
  /** Encode one sample (called on the caller's turn, so later mutation is harmless). */
  encode(sample: T): Uint8Array;
  /** Decode bytes made by `encode`. Throwing makes the read a miss. */
  decode(bytes: Uint8Array): T;
}

/**
 * Names the data set the cached bytes belong to. Change `version` whenever
 * the data changes; old entries are then never served.
 */
export interface DatasetFingerprint {
  /** Data set name, e.g. `'chest-xray'`. */
  name: string;
  /** Data set version, e.g. `'2024-05'` or a content hash. */
  version?: string | number;
}

interface SourceIdentity {
  fingerprint?: unknown;
  name?: unknown;
  version?: unknown;
}

/** The fingerprint string used to prefix keys for `source`. */
export function resolveFingerprint(
  fingerprint: string | DatasetFingerprint | undefined,
  source: Dataset<unknown>,
): string {
  if (typeof fingerprint === 'string') {
    if (fingerprint.length === 0)
      throw new RangeError('fingerprint must be a non-empty string, got ""');
    return fingerprint;
  }
  if (fingerprint !== undefined) {
    if (typeof fingerprint !== 'object' || fingerprint === null) {
      throw new TypeError(
        `fingerprint must be a string or { name, version }, got ${showValue(fingerprint)}`,
      );
    }
    const name = nonEmptyString('fingerprint.name', fingerprint.name);
    const version = withDefault('fingerprint.version', fingerprint.version, 0, (n, v) => {
      if (typeof v === 'string') return v;
      if (typeof v !== 'number') throw badType(n, 'a string or a finite number', v);
      if (!Number.isFinite(v)) throw badRange(n, 'a string or a finite number', v);
      return v;
    });
    return `${name}@${version}`;
  }
  const id = source as SourceIdentity;
  if (typeof id.fingerprint === 'string' && id.fingerprint !== '') return id.fingerprint;
  if (typeof id.name === 'string' && id.name !== '') {
    return `${id.name}@${typeof id.version === 'string' || typeof id.version === 'number' ? id.version : 0}#${source.length}`;
  }
  return `dataset#${source.length}`;
}

const defaultCodec: SampleCodec<never> = {
  encode: (s) => encodeSample(s),
  // the store's get hands over bytes nothing else holds: the sample may be views of them
  decode: (b) => decodeSample(b, { share: true }) as never,
};

/** The `codec` option checked (a TypeError naming it), or the default sample codec. */
export function resolveCodec<T>(codec: SampleCodec<T> | undefined): SampleCodec<T> {
  return withDefault('codec', codec, defaultCodec as SampleCodec<T>, (name, v) => {
    const c = v as Partial<SampleCodec<T>> | null;
    if (
      c === null ||
      typeof c !== 'object' ||
      typeof c.encode !== 'function' ||
      typeof c.decode !== 'function'
    ) {
      throw badType(name, 'a SampleCodec (encode, decode)', v);
    }
    return c as SampleCodec<T>;
  });
}
