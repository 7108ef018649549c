import { decodeSample, encodeSample, SampleCodecError } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('encodeSample / decodeSample', () => {
  it('round-trips a multimodal sample and keeps every typed-array type', () => {
    const sample = {
      image: new Float32Array([0.5, -1.25, 3e10]),
      tabular: [new Int16Array([-3, 7]), new Uint8ClampedArray([0, 255])],
      label: 2,
      meta: {
        id: 'p-17',
        ok: true,
        none: null,
        missing: undefined,
        deep: { f64: new Float64Array([Math.PI]) },
      },
      big: [new BigInt64Array([-5n]), new BigUint64Array([2n ** 63n])],
      misc: [
        new Int8Array([-1]),
        new Uint16Array([65535]),
        new Int32Array([-7]),
        new Uint32Array([4e9]),
        new Uint8Array([9]),
      ],
      raw: new Uint8Array([1, 2, 3]).buffer,
    };
    const back = decodeSample(encodeSample(sample)) as typeof sample;
    expect(back).toEqual(sample);
    expect(back.image).toBeInstanceOf(Float32Array);
    expect(back.tabular[0]).toBeInstanceOf(Int16Array);
    expect(back.tabular[1]).toBeInstanceOf(Uint8ClampedArray);
    expect(back.meta.deep.f64).toBeInstanceOf(Float64Array);
    expect(back.big[1]).toBeInstanceOf(BigUint64Array);
    expect(back.raw).toBeInstanceOf(ArrayBuffer);
    expect('missing' in back.meta).toBe(true);
  });

  it('copies only the viewed part of a typed array with an offset', () => {
    const buf = new Float32Array([1, 2, 3, 4, 5]);
    const view = buf.subarray(1, 3);
    const back = decodeSample(encodeSample({ v: view })) as { v: Float32Array };
    expect([...back.v]).toEqual([2, 3]);
    expect(back.v.buffer.byteLength).toBe(8);
  });

  it('round-trips arbitrary JSON-like values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => {
        expect(decodeSample(encodeSample(v))).toEqual(v);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses values it cannot store, naming the path', () => {
    expect(() => encodeSample({ a: [1, () => 0] })).toThrow(/sample\.a\[1\]/);
    expect(() => encodeSample({ m: new Map() })).toThrow(TypeError);
    expect(() => encodeSample({ d: new DataView(new ArrayBuffer(2)) })).toThrow(/DataView/);
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(() => encodeSample(cyc)).toThrow(/cycle/);
  });

  it('rejects truncated or foreign bytes with SampleCodecError', () => {
    const bytes = encodeSample({ x: new Float64Array([1, 2, 3]) });
    expect(() => decodeSample(bytes.subarray(0, bytes.length - 3))).toThrow(SampleCodecError);
    expect(() => decodeSample(new Uint8Array([1, 2, 3, 4, 5]))).toThrow(SampleCodecError);
    const extra = new Uint8Array(bytes.length + 1);
    extra.set(bytes);
    expect(() => decodeSample(extra)).toThrow(/trailing/);
    expect(() => decodeSample('x' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('does not let a "__proto__" key change the prototype', () => {
    const v = JSON.parse('{"__proto__": {"polluted": 1}}');
    const back = decodeSample(encodeSample(v)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(['__proto__']);
  });
});
