/** The `.npy` dtypes the packer writes: uint8 (PNG/JPEG pixels), little-endian float32 (rescaled DICOM values). */
export type NpyDtype = '|u1' | '<f4';

/**
 * NumPy's `.npy` format (version 1.0) for uint8 or float32 arrays: a 10-byte preamble, a
 * header dict padded with spaces to a multiple of 64 bytes, then the C-order
 * data. What WebDataset (and `numpy.load`) read for a `.npy` member.
 */
function header(shape: readonly number[], dtype: NpyDtype): Uint8Array {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let dict = `{'descr': '${dtype}', 'fortran_order': False, 'shape': (${dims}), }`;
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  dict = `${dict}${' '.repeat(total - 10 - dict.length - 1)}\n`;
  const out = new Uint8Array(total);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]); // \x93NUMPY v1.0
  out[8] = dict.length & 0xff;
  out[9] = dict.length >> 8;
  for (let i = 0; i < dict.length; i++) out[10 + i] = dict.charCodeAt(i);
  return out;
}

/** Size in bytes of a `.npy` file of `shape` and `dtype`. */
export function npySize(shape: readonly number[], dtype: NpyDtype = '|u1'): number {
  const itemsize = dtype === '<f4' ? 4 : 1;
  return header(shape, dtype).length + shape.reduce((a, b) => a * b, 1) * itemsize;
}

/** A `.npy` file of `shape` holding `data` (C order): uint8, or little-endian float32 for a Float32Array. */
export function encodeNpy(data: Uint8Array | Float32Array, shape: readonly number[]): Uint8Array {
  const head = header(shape, data instanceof Float32Array ? '<f4' : '|u1');
  const out = new Uint8Array(head.length + data.byteLength);
  out.set(head);
  if (data instanceof Float32Array) {
    const view = new DataView(out.buffer, head.length);
    for (let i = 0; i < data.length; i++) view.setFloat32(i * 4, data[i] as number, true);
  } else {
    out.set(data, head.length);
  }
  return out;
}

/**
 * The dtype and shape of a `.npy` file, checked: magic, version 1.x/2.x, a
 * header dict in the file, and data of exactly the size the shape says.
 * Throws an Error saying what is wrong.
 */
export function readNpyHeader(bytes: Uint8Array): { descr: string; shape: number[] } {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error('not a .npy file');
  const major = bytes[6] as number;
  const long = major >= 2;
  const len = long
    ? new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true)
    : (bytes[8] as number) | ((bytes[9] as number) << 8);
  const start = long ? 12 : 10;
  if (start + len > bytes.length) throw new Error('truncated .npy header');
  const dict = new TextDecoder().decode(bytes.subarray(start, start + len));
  const descr = /'descr':\s*'([^']+)'/.exec(dict)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(dict)?.[1];
  if (!descr || shapeText === undefined) throw new Error(`bad .npy header ${JSON.stringify(dict)}`);
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  const itemsize = Number(/\d+$/.exec(descr)?.[0] ?? Number.NaN);
  const expected = start + len + shape.reduce((a, b) => a * b, 1) * itemsize;
  if (!Number.isFinite(expected) || expected !== bytes.length) {
    throw new Error(
      `.npy of ${descr} ${JSON.stringify(shape)} should be ${expected} bytes, it is ${bytes.length}`,
    );
  }
  return { descr, shape };
}
