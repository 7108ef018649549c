/**
 * Find every `ArrayBuffer` (and `ImageBitmap`) reachable from `value` — inside
 * typed arrays, DataViews, plain objects, arrays, Maps and Sets — so a sample
 * can be sent with `Comlink.transfer(sample, collectTransferables(sample))`
 * and moved instead of copied. Each buffer is listed once (views sharing one
 * buffer are fine); `SharedArrayBuffer`s (shared, not moved) and buffers that
 * are already detached are skipped.
 *
 * @example
 * const sample = { image: new Float32Array(64 * 64), label: 3 };
 * postMessage(sample, { transfer: collectTransferables(sample) }); // sample.image is detached now
 */
export function collectTransferables(value: unknown): Transferable[] {
  // the walk is synchronous, so two scratch sets serve every call
  try {
    visit(value, found, seen);
    return Array.from(found);
  } finally {
    found.clear();
    seen.clear();
  }
}

const found = new Set<Transferable>();
const seen = new Set<object>();

const hasImageBitmap = typeof ImageBitmap !== 'undefined';

function visit(value: unknown, found: Set<Transferable>, seen: Set<object>): void {
  if (value === null || typeof value !== 'object') return;
  if (value instanceof ArrayBuffer) {
    if (!isDetached(value)) found.add(value);
    return;
  }
  if (ArrayBuffer.isView(value)) {
    const buffer = value.buffer;
    if (buffer instanceof ArrayBuffer && !isDetached(buffer)) found.add(buffer);
    return;
  }
  if (hasImageBitmap && value instanceof ImageBitmap) {
    found.add(value);
    return;
  }
  if (seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const item of value) visit(item, found, seen);
  } else if (value instanceof Map) {
    for (const [k, v] of value) {
      visit(k, found, seen);
      visit(v, found, seen);
    }
  } else if (value instanceof Set) {
    for (const item of value) visit(item, found, seen);
  } else {
    for (const key of Object.keys(value))
      visit((value as Record<string, unknown>)[key], found, seen);
  }
}

function isDetached(buffer: ArrayBuffer): boolean {
  return (buffer as ArrayBuffer & { detached?: boolean }).detached === true;
}
