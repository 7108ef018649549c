/**
 * Byte size of one binary leaf: an ArrayBuffer, SharedArrayBuffer or any
 * ArrayBuffer view (typed array, DataView). -1 when `value` is none of these.
 */
function leafBytes(value: object): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer) {
    return value.byteLength;
  }
  return -1;
}

/** Sum the binary leaves among the own enumerable values of `container` (one level). */
function childBytes(container: object, deeper: boolean): number {
  let total = 0;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) total += valueBytes(container[i], deeper);
    return total;
  }
  const record = container as Record<string, unknown>;
  for (const key in record) {
    if (Object.hasOwn(record, key)) total += valueBytes(record[key], deeper);
  }
  return total;
}

function valueBytes(value: unknown, deeper: boolean): number {
  if (value === null || typeof value !== 'object') return 0;
  const leaf = leafBytes(value);
  if (leaf >= 0) return leaf;
  return deeper ? childBytes(value, false) : 0;
}

/**
 * The default size function of {@link LRUCache} and {@link CachedDataset}:
 * the bytes held by the binary data in `value`.
 *
 * Counts the `byteLength` of ArrayBuffers, SharedArrayBuffers and ArrayBuffer
 * views (typed arrays, DataView) found in `value` itself, in its own
 * enumerable properties / array elements, and one level below those (so a
 * sample `{ image: Float32Array, tabular: [Float32Array, ...], label }` is
 * measured fully). Anything else (numbers, strings, deeper nesting) counts 0.
 * Two views of the same buffer are both counted, so the result is an upper
 * bound of what the value keeps alive. Runs without allocating.
 *
 * @example
 * defaultSizeOf({ image: new Uint8Array(1024), tabular: new Float32Array(8), label: 1 }); // 1056
 */
export function defaultSizeOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const leaf = leafBytes(value);
  if (leaf >= 0) return leaf;
  return childBytes(value, true);
}
