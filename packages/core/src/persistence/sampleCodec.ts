/**
 * Encode a sample — nested plain objects and arrays of typed arrays, numbers,
 * strings, booleans, null and undefined — into one `Uint8Array`, and back.
 * Typed arrays keep their exact type (a `Float32Array` comes back as a
 * `Float32Array`). The disk tier and `MemoryMappedCache` store samples this way.
 *
 * Layout: 4-byte magic `MFS1`, then one tagged value. Numbers are float64,
 * lengths uint32, all little-endian; typed-array payloads are copied out on
 * decode so the result never aliases the input (unless `share` asks for views).
 *
 * This file holds the format (tags, typed-array codes, the error); encodeSample.ts and
 * decodeSample.ts the two directions.
 */

import { registerErrorClass } from '../errorRegistry.js';
import { MedFusionError } from '../errors.js';

/** A value `encodeSample` accepts. */
export type SampleValue =
  | null
  | undefined
  | boolean
  | number
  | string
  | ArrayBuffer
  | ArrayBufferView
  | readonly SampleValue[]
  | { readonly [key: string]: SampleValue };

/** Raised by `decodeSample` for bytes that are not a valid encoding. */
export class SampleCodecError extends MedFusionError {
  /** Stable code to branch on. */
  declare readonly code: 'BAD_SAMPLE_BYTES';
  constructor(message: string) {
    super('BAD_SAMPLE_BYTES', message);
    this.name = 'SampleCodecError';
  }
}
registerErrorClass('SampleCodecError', SampleCodecError);

export const MAGIC = [0x4d, 0x46, 0x53, 0x31]; // "MFS1"
export const MAX_DEPTH = 64;

export enum Tag {
  Null = 0,
  Undefined = 1,
  False = 2,
  True = 3,
  Number = 4,
  String = 5,
  Array = 6,
  Object = 7,
  Typed = 8,
  Buffer = 9,
}

/** A typed-array constructor: a whole buffer, or `length` elements of one from `byteOffset`. */
export interface TypedArrayCtor {
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): ArrayBufferView;
  readonly BYTES_PER_ELEMENT: number;
}

/** Typed-array constructors by wire code; the order is part of the format. */
export const TYPED: readonly (TypedArrayCtor | undefined)[] = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  (globalThis as unknown as { Float16Array?: TypedArrayCtor }).Float16Array,
];
const TYPED_NAMES = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'Float16Array',
];

export function typedCode(view: ArrayBufferView): number {
  const name = Object.prototype.toString.call(view).slice(8, -1);
  return TYPED_NAMES.indexOf(name);
}

interface TextCodec {
  encode(s: string): Uint8Array;
}
interface TextDec {
  decode(b: Uint8Array): string;
}
const G = globalThis as unknown as {
  TextEncoder: new () => TextCodec;
  TextDecoder: new (label?: string, opts?: { fatal?: boolean }) => TextDec;
};
let encoder: TextCodec | undefined;
let decoder: TextDec | undefined;

export function textEncoder(): TextCodec {
  if (!encoder) encoder = new G.TextEncoder();
  return encoder;
}

export function textDecoder(): TextDec {
  if (!decoder) decoder = new G.TextDecoder('utf-8', { fatal: true });
  return decoder;
}
