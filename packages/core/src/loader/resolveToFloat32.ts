import {
  arrayOf,
  badRange,
  badType,
  positiveFinite,
  showValue,
  string,
  withDefault,
} from '../util/validate.js';
import type { ToFloat32Options } from './collateOptions.js';

/**
 * A checked `toFloat32` option: `out = x * mul[c] + add[c]` for channel
 * `c = index mod mul.length` (the last, fastest-varying axis), i.e.
 * `mul = scale / std`, `add = -mean / std`. The one resolution shared by
 * core's collate (CPU) and web's `UploadRing` (GPU).
 */
export interface ToFloat32Plan {
  /** `scale / std[c]`, one per channel (length 1: every channel). */
  mul: Float64Array;
  /** `-mean[c] / std[c]`, one per channel, as long as `mul`. */
  add: Float64Array;
  /** The fields to convert (empty without the option). */
  fields: ReadonlySet<string>;
}

/** A finite number: TypeError for a non-number, RangeError for `NaN` and `±Infinity`. */
function finiteNumber(name: string, v: unknown): number {
  if (typeof v !== 'number') throw badType(name, 'a finite number', v);
  if (!Number.isFinite(v)) throw badRange(name, 'a finite number', v);
  return v;
}

function channelTable(name: string, value: unknown): Float64Array {
  if (typeof value === 'number') return Float64Array.of(finiteNumber(name, value));
  if (Array.isArray(value)) {
    if (value.length === 0) throw badType(name, 'a number or a non-empty array of numbers', value);
    return Float64Array.from(arrayOf(name, value, finiteNumber));
  }
  if (
    value === null ||
    typeof value !== 'object' ||
    typeof (value as ArrayLike<number>).length !== 'number' ||
    (value as ArrayLike<number>).length === 0
  ) {
    throw new TypeError(
      `${name} must be a number or a non-empty array of numbers, got ${showValue(value)}`,
    );
  }
  const like = value as ArrayLike<unknown>;
  const out = new Float64Array(like.length);
  for (let i = 0; i < like.length; i++) out[i] = finiteNumber(`${name}[${i}]`, like[i]);
  return out;
}

/**
 * Check a `toFloat32` option (TypeError/RangeError naming `toFloat32.scale`,
 * `toFloat32.std[1]`, …) and resolve it to per-channel multipliers and
 * addends. `undefined` gives the identity with no fields.
 */
export function resolveToFloat32(norm: ToFloat32Options | undefined): ToFloat32Plan {
  if (norm === undefined) {
    return { mul: Float64Array.of(1), add: Float64Array.of(0), fields: new Set() };
  }
  if (norm === null || typeof norm !== 'object') {
    throw new TypeError(`toFloat32 must be an options object, got ${showValue(norm)}`);
  }
  const scale = withDefault('toFloat32.scale', norm.scale, 1, positiveFinite);
  const mean = withDefault('toFloat32.mean', norm.mean, Float64Array.of(0), channelTable);
  const std = withDefault('toFloat32.std', norm.std, Float64Array.of(1), channelTable);
  for (let i = 0; i < std.length; i++) positiveFinite(`toFloat32.std[${i}]`, std[i]);
  if (mean.length > 1 && std.length > 1 && mean.length !== std.length) {
    throw new RangeError(
      `toFloat32.mean and toFloat32.std must have the same number of channels, got ${mean.length} and ${std.length}`,
    );
  }
  const channels = Math.max(mean.length, std.length);
  const mul = new Float64Array(channels);
  const add = new Float64Array(channels);
  for (let c = 0; c < channels; c++) {
    const m = mean.length === 1 ? mean[0]! : mean[c]!;
    const s = std.length === 1 ? std[0]! : std[c]!;
    mul[c] = scale / s;
    add[c] = -m / s;
  }
  const fields = new Set(
    withDefault('toFloat32.fields', norm.fields, ['image'], (name, v) =>
      arrayOf(name, v, string, 'an array of field names'),
    ),
  );
  return { mul, add, fields };
}
