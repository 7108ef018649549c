/** Every typed array kind a sample field may use (64-bit integer arrays are not supported). */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array;

/** The constructor of a {@link TypedArray} kind. */
export interface TypedArrayConstructor<A extends TypedArray = TypedArray> {
  /** A zero-filled array of `length` elements. */
  new (length: number): A;
  /** Bytes per element (1, 2, 4 or 8). */
  readonly BYTES_PER_ELEMENT: number;
  /** The constructor's name, e.g. `'Float32Array'`. */
  readonly name: string;
}

/** True for the typed array kinds in {@link TypedArray}. */
export function isTypedArray(value: unknown): value is TypedArray {
  return (
    ArrayBuffer.isView(value) &&
    !(value instanceof DataView) &&
    !(value instanceof BigInt64Array) &&
    !(value instanceof BigUint64Array)
  );
}

/** A typed array with its logical shape (row-major, no batch dimension for a sample). */
export interface ShapedArray<A extends TypedArray = TypedArray> {
  /** The values, row-major. */
  data: A;
  /** Dimensions; their product equals `data.length`. */
  shape: readonly number[];
}
