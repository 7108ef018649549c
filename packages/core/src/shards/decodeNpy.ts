import { SourceFormatError } from '../errors.js';

/** The element types {@link decodeNpy} reads, by NumPy's name. */
export type NpyDtype =
  | 'uint8'
  | 'int8'
  | 'uint16'
  | 'int16'
  | 'uint32'
  | 'int32'
  | 'float32'
  | 'float64';

/** A decoded `.npy` array: its element type, shape (C order) and elements. */
export interface NpyArray {
  /** NumPy's name of the element type. */
  dtype: NpyDtype;
  /** The `descr` of the header, e.g. `'<f4'`. */
  descr: string;
  /** Dimensions, outermost first (`[]` for a scalar). */
  shape: number[];
  /**
   * The elements in C order: a view of the given bytes (no copy) when they are
   * aligned for the type, else a copy.
   */
  data:
    | Uint8Array
    | Int8Array
    | Uint16Array
    | Int16Array
    | Uint32Array
    | Int32Array
    | Float32Array
    | Float64Array;
}

type Ctor = {
  new (b: ArrayBuffer, o: number, n: number): NpyArray['data'];
  BYTES_PER_ELEMENT: number;
} & (new (
  n: number,
) => NpyArray['data']);

const TYPES: Record<string, [NpyDtype, Ctor]> = {
  '|u1': ['uint8', Uint8Array as unknown as Ctor],
  '|i1': ['int8', Int8Array as unknown as Ctor],
  '<u2': ['uint16', Uint16Array as unknown as Ctor],
  '<i2': ['int16', Int16Array as unknown as Ctor],
  '<u4': ['uint32', Uint32Array as unknown as Ctor],
  '<i4': ['int32', Int32Array as unknown as Ctor],
  '<f4': ['float32', Float32Array as unknown as Ctor],
  '<f8': ['float64', Float64Array as unknown as Ctor],
};

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Read a NumPy `.npy` file (format 1.x/2.x/3.x): the `.npy` members `medfusion
 * pack --decode` writes (uint8 pixels of PNG/JPEG, float32 rescaled DICOM
 * values), or any C-order little-endian array of the types of {@link NpyDtype}.
 * The elements are a view of `bytes` when aligned (a shard's members are), so a
 * pre-decoded sample reaches the model with no decode and no copy. The shape is
 * checked against the bytes before anything is allocated; a malformed file,
 * Fortran order or a big-endian or other type is a `BAD_FORMAT`
 * {@link SourceFormatError} naming `source`.
 *
 * @example
 * const { shape, data } = decodeNpy(sample.files.npy as Uint8Array);
 */
export function decodeNpy(bytes: Uint8Array, source = '.npy'): NpyArray {
  const bad = (why: string) => new SourceFormatError(`${source}: ${why}`);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw bad('not a .npy file');
  const major = bytes[6] as number;
  if (major < 1 || major > 3) throw bad(`unknown .npy version ${major}`);
  const long = major >= 2;
  if (long && bytes.length < 12) throw bad('truncated .npy header');
  const len = long
    ? new DataView(bytes.buffer, bytes.byteOffset, 12).getUint32(8, true)
    : (bytes[8] as number) | ((bytes[9] as number) << 8);
  const start = long ? 12 : 10;
  if (start + len > bytes.length) throw bad('truncated .npy header');
  const dict = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(
    bytes.subarray(start, start + len),
  );
  const descr = /'descr':\s*'([^']+)'/.exec(dict)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(dict)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(dict)?.[1];
  if (!descr || !fortran || shapeText === undefined)
    throw bad(`bad .npy header ${JSON.stringify(dict)}`);
  if (fortran === 'True') throw bad('Fortran-order arrays are not read (save C order)');
  const type =
    TYPES[descr] ?? (descr === '<u1' || descr === '<i1' ? TYPES[`|${descr.slice(1)}`] : undefined);
  if (!type) throw bad(`dtype ${descr} is not read (one of ${Object.keys(TYPES).join(', ')})`);
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (shape.some((d) => !Number.isSafeInteger(d) || d < 0)) throw bad(`bad shape (${shapeText})`);
  const [dtype, Array_] = type;
  const count = shape.reduce((a, b) => a * b, 1);
  const offset = start + len;
  if (count * Array_.BYTES_PER_ELEMENT !== bytes.length - offset) {
    throw bad(
      `${descr} (${shape.join(', ')}) needs ${count * Array_.BYTES_PER_ELEMENT} bytes of data, the file has ${bytes.length - offset}`,
    );
  }
  const at = bytes.byteOffset + offset;
  let data: NpyArray['data'];
  if (Array_.BYTES_PER_ELEMENT > 1 && !LITTLE_ENDIAN) {
    throw bad('little-endian arrays are read on little-endian machines only');
  }
  if (at % Array_.BYTES_PER_ELEMENT === 0) {
    data = new Array_(bytes.buffer as ArrayBuffer, at, count);
  } else {
    data = new Array_(count);
    new Uint8Array(data.buffer).set(bytes.subarray(offset));
  }
  return { dtype, descr, shape, data };
}
