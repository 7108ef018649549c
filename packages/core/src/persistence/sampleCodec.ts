/**
 * Encode a sample — nested plain objects and arrays of typed arrays, numbers,
 * strings, booleans, null and undefined — into one `Uint8Array`, and back.
 * Typed arrays keep their exact type (a `Float32Array` comes back as a
 * `Float32Array`). The disk tier and `MemoryMappedCache` store samples this way.
 *
 * Layout: 4-byte magic `MFS1`, then one tagged value. Numbers are float64,
 * lengths uint32, all little-endian; typed-array payloads are copied out on
 * decode so the result never aliases the input (unless `share` asks for views).
 */

import { registerErrorClass } from '../errorRegistry.js';
import { MedFusionError } from '../errors.js';
import { bool, showValue } from '../util/validate.js';

/** A value {@link encodeSample} accepts. */
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

/** Raised by {@link decodeSample} for bytes that are not a valid encoding. */
export class SampleCodecError extends MedFusionError {
  /** Stable code to branch on. */
  declare readonly code: 'BAD_SAMPLE_BYTES';
  constructor(message: string) {
    super('BAD_SAMPLE_BYTES', message);
    this.name = 'SampleCodecError';
  }
}
registerErrorClass('SampleCodecError', SampleCodecError);

const MAGIC = [0x4d, 0x46, 0x53, 0x31]; // "MFS1"
const MAX_DEPTH = 64;

enum Tag {
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
interface TypedArrayCtor {
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): ArrayBufferView;
  readonly BYTES_PER_ELEMENT: number;
}

/** Options of {@link decodeSample}. */
export interface DecodeSampleOptions {
  /**
   * Return typed arrays as views of `bytes`' buffer instead of copies, where
   * their payload lies aligned for its element size (the others are still
   * copied). Saves allocating and filling fresh memory per sample, the largest
   * cost of a disk hit for large samples; give it only for bytes nothing else
   * holds or changes (a store's `get` hands its caller its own bytes).
   * @default false
   */
  share?: boolean;
}

/** Typed-array constructors by wire code; the order is part of the format. */
const TYPED: readonly (TypedArrayCtor | undefined)[] = [
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

function typedCode(view: ArrayBufferView): number {
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

function textEncoder(): TextCodec {
  if (!encoder) encoder = new G.TextEncoder();
  return encoder;
}

function textDecoder(): TextDec {
  if (!decoder) decoder = new G.TextDecoder('utf-8', { fatal: true });
  return decoder;
}

/** First pass: measure the size, encoding strings once. */
function measure(
  value: unknown,
  strings: Uint8Array[],
  depth: number,
  path: string,
  seen: Set<object>,
): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'number') return 9;
  if (typeof value === 'string') {
    const bytes = textEncoder().encode(value);
    strings.push(bytes);
    return 5 + bytes.length;
  }
  if (typeof value !== 'object') {
    throw new TypeError(
      `sample${path} must be a number, string, boolean, null, typed array, array or plain object, got ${typeof value}`,
    );
  }
  if (depth > MAX_DEPTH)
    throw new RangeError(`sample${path} is nested deeper than ${MAX_DEPTH} levels`);
  if (ArrayBuffer.isView(value)) {
    if (typedCode(value) < 0) {
      throw new TypeError(
        `sample${path} is a ${Object.prototype.toString.call(value).slice(8, -1)}, which cannot be stored; use a typed array`,
      );
    }
    return 6 + value.byteLength;
  }
  if (value instanceof ArrayBuffer) return 5 + value.byteLength;
  if (seen.has(value)) throw new TypeError(`sample${path} contains a cycle`);
  seen.add(value);
  let size = 5;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      size += measure(value[i], strings, depth + 1, `${path}[${i}]`, seen);
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(
        `sample${path} is a ${Object.prototype.toString.call(value).slice(8, -1)}; only plain objects, arrays and typed arrays can be stored`,
      );
    }
    for (const key of Object.keys(value)) {
      const keyBytes = textEncoder().encode(key);
      strings.push(keyBytes);
      size += 4 + keyBytes.length;
      size += measure(
        (value as Record<string, unknown>)[key],
        strings,
        depth + 1,
        `${path}.${key}`,
        seen,
      );
    }
  }
  seen.delete(value);
  return size;
}

class Writer {
  pos = 4;
  stringIndex = 0;
  constructor(
    readonly out: Uint8Array,
    readonly dv: DataView,
    readonly strings: Uint8Array[],
  ) {}

  str(): void {
    const bytes = this.strings[this.stringIndex++]!;
    this.dv.setUint32(this.pos, bytes.length, true);
    this.out.set(bytes, this.pos + 4);
    this.pos += 4 + bytes.length;
  }

  value(v: unknown): void {
    const { out, dv } = this;
    if (v === null) out[this.pos++] = Tag.Null;
    else if (v === undefined) out[this.pos++] = Tag.Undefined;
    else if (v === false) out[this.pos++] = Tag.False;
    else if (v === true) out[this.pos++] = Tag.True;
    else if (typeof v === 'number') {
      out[this.pos] = Tag.Number;
      dv.setFloat64(this.pos + 1, v, true);
      this.pos += 9;
    } else if (typeof v === 'string') {
      out[this.pos++] = Tag.String;
      this.str();
    } else if (ArrayBuffer.isView(v)) {
      out[this.pos] = Tag.Typed;
      out[this.pos + 1] = typedCode(v);
      dv.setUint32(this.pos + 2, v.byteLength, true);
      out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), this.pos + 6);
      this.pos += 6 + v.byteLength;
    } else if (v instanceof ArrayBuffer) {
      out[this.pos] = Tag.Buffer;
      dv.setUint32(this.pos + 1, v.byteLength, true);
      out.set(new Uint8Array(v), this.pos + 5);
      this.pos += 5 + v.byteLength;
    } else if (Array.isArray(v)) {
      out[this.pos] = Tag.Array;
      dv.setUint32(this.pos + 1, v.length, true);
      this.pos += 5;
      for (let i = 0; i < v.length; i++) this.value(v[i]);
    } else {
      const keys = Object.keys(v as object);
      out[this.pos] = Tag.Object;
      dv.setUint32(this.pos + 1, keys.length, true);
      this.pos += 5;
      for (const key of keys) {
        this.str();
        this.value((v as Record<string, unknown>)[key]);
      }
    }
  }
}

/**
 * Encode `sample` into a fresh `Uint8Array`.
 *
 * @throws TypeError naming the path of a value that cannot be stored
 *   (functions, Maps, class instances, cycles).
 * @example
 * const bytes = encodeSample({ image: new Float32Array([0.5]), label: 1 });
 * const back = decodeSample(bytes) as { image: Float32Array; label: number };
 */
export function encodeSample(sample: unknown): Uint8Array {
  const strings: Uint8Array[] = [];
  const size = 4 + measure(sample, strings, 0, '', new Set());
  const out = new Uint8Array(size);
  out.set(MAGIC, 0);
  const w = new Writer(out, new DataView(out.buffer), strings);
  w.value(sample);
  return out;
}

class Reader {
  pos = 4;
  constructor(
    readonly bytes: Uint8Array,
    readonly dv: DataView,
    readonly share: boolean,
  ) {}

  need(n: number): void {
    if (this.pos + n > this.bytes.length) throw new SampleCodecError('sample bytes are truncated');
  }

  /** The next uint32 (little endian). */
  u32(): number {
    this.need(4);
    const v = this.dv.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** An element count, which cannot exceed the bytes left (each element takes one at least). */
  count(): number {
    const n = this.u32();
    if (n > this.bytes.length - this.pos) throw new SampleCodecError('sample bytes are truncated');
    return n;
  }

  str(): string {
    const len = this.u32();
    this.need(len);
    let s: string;
    try {
      s = textDecoder().decode(this.bytes.subarray(this.pos, this.pos + len));
    } catch {
      throw new SampleCodecError(
        `sample bytes hold a string that is not valid UTF-8 at byte ${this.pos}`,
      );
    }
    this.pos += len;
    return s;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new SampleCodecError('sample bytes nest too deep');
    this.need(1);
    const tag = this.bytes[this.pos++];
    switch (tag) {
      case Tag.Null:
        return null;
      case Tag.Undefined:
        return undefined;
      case Tag.False:
        return false;
      case Tag.True:
        return true;
      case Tag.Number: {
        this.need(8);
        const n = this.dv.getFloat64(this.pos, true);
        this.pos += 8;
        return n;
      }
      case Tag.String:
        return this.str();
      case Tag.Typed: {
        this.need(5);
        const Ctor = TYPED[this.bytes[this.pos]!];
        const len = this.dv.getUint32(this.pos + 1, true);
        this.pos += 5;
        if (!Ctor) throw new SampleCodecError('sample bytes hold an unknown typed-array type');
        this.need(len);
        const start = this.bytes.byteOffset + this.pos;
        this.pos += len;
        const size = Ctor.BYTES_PER_ELEMENT;
        if (this.share && start % size === 0 && len % size === 0) {
          // a view of the caller's bytes: no fresh memory for the payload
          return new Ctor(this.bytes.buffer, start, len / size);
        }
        const copy = (this.bytes.buffer as ArrayBuffer).slice(start, start + len);
        try {
          return new Ctor(copy);
        } catch (err) {
          throw new SampleCodecError(`sample bytes hold a misaligned typed array: ${String(err)}`);
        }
      }
      case Tag.Buffer: {
        const len = this.u32();
        this.need(len);
        const start = this.bytes.byteOffset + this.pos;
        this.pos += len;
        return (this.bytes.buffer as ArrayBuffer).slice(start, start + len);
      }
      case Tag.Array: {
        const n = this.count();
        const arr = new Array<unknown>(n);
        for (let i = 0; i < n; i++) arr[i] = this.value(depth + 1);
        return arr;
      }
      case Tag.Object: {
        const n = this.count();
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const key = this.str();
          const v = this.value(depth + 1);
          Object.defineProperty(obj, key, {
            value: v,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return obj;
      }
      default:
        throw new SampleCodecError(`sample bytes hold an unknown tag ${String(tag)}`);
    }
  }
}

/**
 * Decode bytes made by {@link encodeSample}. Typed arrays come back with
 * their original type, in fresh buffers (views of `bytes` with `share`).
 *
 * @throws SampleCodecError (code `BAD_SAMPLE_BYTES`) for bytes that are not a
 *   complete encoding.
 */
export function decodeSample(bytes: Uint8Array, options: DecodeSampleOptions = {}): unknown {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`bytes must be a Uint8Array, got ${Object.prototype.toString.call(bytes)}`);
  }
  if (bytes.length < 5 || MAGIC.some((m, i) => bytes[i] !== m)) {
    throw new SampleCodecError('sample bytes do not start with the MFS1 magic');
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${showValue(options)}`);
  }
  const share = options.share === undefined ? false : bool('options.share', options.share);
  const r = new Reader(
    bytes,
    new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    share,
  );
  const value = r.value(0);
  if (r.pos !== bytes.length) throw new SampleCodecError('sample bytes have trailing data');
  return value;
}
