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
  new (length: number): A;
  readonly BYTES_PER_ELEMENT: number;
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
