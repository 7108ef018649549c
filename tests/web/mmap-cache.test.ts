import { MemoryMappedCache } from '@medfusion/web';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
function dirName(tag: string): string {
  const d = `test-mmap-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(d);
  return d;
}
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) {
    await root.removeEntry(d, { recursive: true }).catch(() => {});
    await deleteDB(`medfusion:${d}`);
  }
});

const arrays = () => ({
  i8: new Int8Array([-128, 0, 127]),
  u8: new Uint8Array([0, 255]),
  u8c: new Uint8ClampedArray([0, 128, 255]),
  i16: new Int16Array([-32768, 32767]),
  u16: new Uint16Array([65535]),
  i32: new Int32Array([-(2 ** 31), 2 ** 31 - 1]),
  u32: new Uint32Array([2 ** 32 - 1]),
  f32: new Float32Array([Math.fround(0.1), Number.NaN, -0, Number.POSITIVE_INFINITY]),
  f64: new Float64Array([Math.PI, -Number.MAX_VALUE, Number.MIN_VALUE]),
  i64: new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n]),
  u64: new BigUint64Array([2n ** 64n - 1n]),
  empty: new Float32Array(0),
  offset: new Float64Array([1, 2, 3, 4]).subarray(1, 3),
});

describe.each(['opfs', 'idb'] as const)('MemoryMappedCache on %s', (backend) => {
  it('round-trips every typed-array type, also from a new cache on the same dir', async () => {
    const cacheDir = dirName(backend);
    const cache = new MemoryMappedCache({ cacheDir, maxSizeGB: 0.01, backend });
    const input = arrays();
    for (const [k, v] of Object.entries(input)) await cache.put(k, v);
    for (const [k, v] of Object.entries(input)) {
      const got = await cache.get(k);
      expect(got?.constructor).toBe(v.constructor);
      expect(got).toEqual(v);
    }
    expect(await cache.get('absent')).toBeUndefined();
    expect(await cache.stats()).toMatchObject({
      entries: 13,
      puts: 13,
      hits: 13,
      misses: 1,
      backend,
    });
    await cache.close();

    const again = new MemoryMappedCache({ cacheDir, backend });
    const f32 = await again.get('f32');
    expect(f32).toBeInstanceOf(Float32Array);
    expect(Object.is((f32 as Float32Array)[2], -0)).toBe(true);
    expect(await again.get('i64')).toEqual(input.i64);
    expect(await again.delete('u8')).toBe(true);
    expect(await again.has('u8')).toBe(false);
    await again.clear();
    expect((await again.stats()).entries).toBe(0);
    await again.close();
  });
});

describe('MemoryMappedCache input checks', () => {
  it('defaults to cacheDir "cache", 10 GB and OPFS', async () => {
    const cache = new MemoryMappedCache();
    expect(cache.cacheDir).toBe('cache');
    expect(cache.maxBytes).toBe(10 * 2 ** 30);
    expect(cache.backend).toBe('opfs');
    await cache.close();
  });

  it('names bad values, keys and sizes', async () => {
    const cache = new MemoryMappedCache({ cacheDir: dirName('bad') });
    await expect(cache.put('k', [1, 2] as unknown as Float32Array)).rejects.toThrow(
      /value must be a typed array/,
    );
    await expect(
      cache.put('k', new DataView(new ArrayBuffer(4)) as unknown as Uint8Array),
    ).rejects.toThrow(TypeError);
    await expect(cache.put('', new Float32Array(1))).rejects.toThrow(
      /key must be a non-empty string/,
    );
    await expect(cache.get(7 as unknown as string)).rejects.toThrow(/key must be a string, got 7/);
    expect(() => new MemoryMappedCache({ maxSizeGB: -1 })).toThrow(/maxSizeGB.*-1/);
    expect(() => new MemoryMappedCache({ maxSizeGB: Number.NaN })).toThrow(RangeError);
    expect(() => new MemoryMappedCache({ maxSizeGB: '5' as unknown as number })).toThrow(TypeError);
    expect(() => new MemoryMappedCache({ cacheDir: '' })).toThrow(/cacheDir/);
    await cache.close();
  });
});
