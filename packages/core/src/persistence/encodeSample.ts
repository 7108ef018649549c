import { MAGIC, MAX_DEPTH, Tag, textEncoder, typedCode } from './sampleCodec.js';

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
