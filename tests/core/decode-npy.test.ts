// decodeNpy reads what NumPy writes (np.save, the truth): dtypes, shapes and values as
// numpy lists them; the elements are a view of the given bytes when aligned (a tar
// member inside a shard's buffer), a copy when not; Fortran order, big-endian and
// short data are BAD_FORMAT errors naming the source.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeNpy, SourceFormatError } from '@medfusion/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const WRITE = `
import json, sys
import numpy as np
d = sys.argv[1]
arrays = {
    "u1": np.arange(24, dtype=np.uint8).reshape(4, 3, 2),
    "f4": (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) * 1024.5,
    "i2": np.array([[-32768, 0, 32767]], dtype=np.int16),
    "f8": np.array(3.25),
    "u2": np.arange(5, dtype=np.uint16) * 1000,
}
for name, a in arrays.items():
    np.save(d + "/" + name + ".npy", a)
np.save(d + "/fortran.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.save(d + "/big.npy", np.arange(3, dtype=">f4"))
print(json.dumps({k: {"dtype": str(a.dtype), "shape": list(a.shape), "values": a.ravel().tolist()} for k, a in arrays.items()}))
`;

let dir: string;
let truth: Record<string, { dtype: string; shape: number[]; values: number[] }>;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'medfusion-npy-'));
  const r = spawnSync('/usr/bin/python3', ['-c', WRITE, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 (numpy) failed: ${r.stderr}`);
  truth = JSON.parse(r.stdout);
});

const file = (name: string) => new Uint8Array(readFileSync(join(dir, `${name}.npy`)));

describe('decodeNpy', () => {
  it('reads dtype, shape and values as numpy wrote them', () => {
    for (const [name, t] of Object.entries(truth)) {
      const a = decodeNpy(file(name), name);
      expect(a.dtype, name).toBe(t.dtype);
      expect(a.shape, name).toEqual(t.shape);
      expect(Array.from(a.data), name).toEqual(t.values);
    }
  });

  it('views the bytes without a copy when aligned (a member inside a shard), copies when not', () => {
    const npy = file('f4');
    const shard = new Uint8Array(4096);
    shard.set(npy, 512);
    const inPlace = decodeNpy(shard.subarray(512, 512 + npy.length));
    expect(inPlace.data.buffer).toBe(shard.buffer);
    shard.set(npy, 513);
    const moved = decodeNpy(shard.subarray(513, 513 + npy.length));
    expect(moved.data.buffer).not.toBe(shard.buffer);
    expect(Array.from(moved.data)).toEqual(truth.f4?.values);
  });

  it('refuses Fortran order, big-endian, short data and non-npy bytes with BAD_FORMAT naming the source', () => {
    expect(() => decodeNpy(file('fortran'), 'a.npy')).toThrow(/a\.npy: Fortran-order/);
    expect(() => decodeNpy(file('big'), 'b.npy')).toThrow(/b\.npy: dtype >f4 is not read/);
    const short = file('u2');
    expect(() => decodeNpy(short.subarray(0, short.length - 1), 'c.npy')).toThrow(
      /c\.npy: <u2 \(5\) needs 10 bytes of data, the file has 9/,
    );
    try {
      decodeNpy(new TextEncoder().encode('hello world'), 'd.npy');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SourceFormatError);
      expect((error as SourceFormatError).code).toBe('BAD_FORMAT');
    }
  });
});
