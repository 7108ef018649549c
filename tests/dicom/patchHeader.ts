// Lying DICOM headers made from the real fixtures (Explicit VR Little Endian data sets,
// native or RLE): a test rewrites NumberOfFrames, Rows or Columns and serves the bytes.

/** Offset of the first Explicit VR LE element `(group,element)` with `vr`, or -1. */
function findElement(bytes: Uint8Array, group: number, element: number, vr: string): number {
  const head = [
    group & 0xff,
    group >> 8,
    element & 0xff,
    element >> 8,
    vr.charCodeAt(0),
    vr.charCodeAt(1),
  ];
  outer: for (let i = 132; i + head.length <= bytes.length; i++) {
    for (let k = 0; k < head.length; k++) if (bytes[i + k] !== head[k]) continue outer;
    return i;
  }
  return -1;
}

/** `bytes` with NumberOfFrames (0028,0008, IS) set to `frames` (the value may change length). */
export function withNumberOfFrames(bytes: Uint8Array, frames: number): Uint8Array {
  const at = findElement(bytes, 0x0028, 0x0008, 'IS');
  if (at < 0) throw new Error('the fixture has no NumberOfFrames');
  const oldLength = (bytes[at + 6] as number) | ((bytes[at + 7] as number) << 8);
  let text = String(frames);
  if (text.length % 2) text += ' ';
  const out = new Uint8Array(bytes.length - oldLength + text.length);
  out.set(bytes.subarray(0, at + 6));
  out[at + 6] = text.length;
  out[at + 7] = 0;
  for (let k = 0; k < text.length; k++) out[at + 8 + k] = text.charCodeAt(k);
  out.set(bytes.subarray(at + 8 + oldLength), at + 8 + text.length);
  return out;
}

/** `bytes` with Rows (0028,0010) and Columns (0028,0011), both US, set. */
export function withImageSize(bytes: Uint8Array, rows: number, columns: number): Uint8Array {
  const out = bytes.slice();
  for (const [element, value] of [
    [0x0010, rows],
    [0x0011, columns],
  ] as const) {
    const at = findElement(out, 0x0028, element, 'US');
    if (at < 0) throw new Error(`the fixture has no (0028,${element.toString(16)})`);
    new DataView(out.buffer).setUint16(at + 8, value, true);
  }
  return out;
}

/** The bytes of fixture file `name` under `filesUrl`. */
export async function fixtureBytes(filesUrl: string, name: string): Promise<Uint8Array> {
  const response = await fetch(`${filesUrl}${name}`);
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** A blob: URL serving `bytes` (revoke it when done). */
export function blobUrl(bytes: Uint8Array): string {
  return URL.createObjectURL(
    new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/dicom' }),
  );
}
