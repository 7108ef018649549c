import { decodeNpy } from '@medfusion/core/internal/tar';

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
 * The dtype and shape of a `.npy` file, checked by core's decodeNpy (magic,
 * version, header, C order, a type it reads, data of exactly the size the shape
 * says). Throws a SourceFormatError saying what is wrong.
 */
export function readNpyHeader(bytes: Uint8Array): { descr: string; shape: number[] } {
  const { descr, shape } = decodeNpy(bytes);
  return { descr, shape };
}
