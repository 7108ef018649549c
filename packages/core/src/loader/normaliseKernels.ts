import type { TypedArray } from '../util/typedArrays.js';

/**
 * Writes `out[at + j] = src[j] * mul[c] + add[c]` for the `n` elements of one
 * sample, `c` the channel of element `j` (HWC: channel fastest). The product and
 * sum are taken in double precision, then rounded once to float32, like the
 * plain loop `for (j) out[at + j] = src[j] * mul[j % C] + add[j % C]`.
 */
export type NormaliseKernel = (
  src: TypedArray,
  out: Float32Array,
  at: number,
  n: number,
  mul: Float64Array,
  add: Float64Array,
) => void;

function oneChannel(
  src: TypedArray,
  out: Float32Array,
  at: number,
  n: number,
  mul: Float64Array,
  add: Float64Array,
): void {
  const m = mul[0]!;
  const a = add[0]!;
  for (let j = 0; j < n; j++) out[at + j] = src[j]! * m + a;
}

function threeChannels(
  src: TypedArray,
  out: Float32Array,
  at: number,
  n: number,
  mul: Float64Array,
  add: Float64Array,
): void {
  const m0 = mul[0]!;
  const m1 = mul[1]!;
  const m2 = mul[2]!;
  const a0 = add[0]!;
  const a1 = add[1]!;
  const a2 = add[2]!;
  for (let j = 0, o = at; j < n; j += 3, o += 3) {
    out[o] = src[j]! * m0 + a0;
    out[o + 1] = src[j + 1]! * m1 + a1;
    out[o + 2] = src[j + 2]! * m2 + a2;
  }
}

function fourChannels(
  src: TypedArray,
  out: Float32Array,
  at: number,
  n: number,
  mul: Float64Array,
  add: Float64Array,
): void {
  const m0 = mul[0]!;
  const m1 = mul[1]!;
  const m2 = mul[2]!;
  const m3 = mul[3]!;
  const a0 = add[0]!;
  const a1 = add[1]!;
  const a2 = add[2]!;
  const a3 = add[3]!;
  for (let j = 0, o = at; j < n; j += 4, o += 4) {
    out[o] = src[j]! * m0 + a0;
    out[o + 1] = src[j + 1]! * m1 + a1;
    out[o + 2] = src[j + 2]! * m2 + a2;
    out[o + 3] = src[j + 3]! * m3 + a3;
  }
}

function anyChannels(
  src: TypedArray,
  out: Float32Array,
  at: number,
  n: number,
  mul: Float64Array,
  add: Float64Array,
): void {
  const channels = mul.length;
  // Channel-major passes: no per-element channel counter or branch.
  for (let c = 0; c < channels; c++) {
    const m = mul[c]!;
    const a = add[c]!;
    for (let j = c; j < n; j += channels) out[at + j] = src[j]! * m + a;
  }
}

/**
 * The kernel for `channels` channels (1, 3 and 4 unrolled, others channel by
 * channel). `n` must be a multiple of `channels` (collate checks this).
 */
export function normaliseKernel(channels: number): NormaliseKernel {
  if (channels === 1) return oneChannel;
  if (channels === 3) return threeChannels;
  if (channels === 4) return fourChannels;
  return anyChannels;
}
