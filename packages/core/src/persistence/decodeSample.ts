import { bool, showValue } from '../util/validate.js';
import { MAGIC, MAX_DEPTH, SampleCodecError, Tag, TYPED, textDecoder } from './sampleCodec.js';

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
