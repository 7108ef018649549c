import { defaultSizeOf } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('defaultSizeOf', () => {
  it('measures buffers and views directly', () => {
    expect(defaultSizeOf(new Float64Array(3))).toBe(24);
    expect(defaultSizeOf(new ArrayBuffer(7))).toBe(7);
    expect(defaultSizeOf(new DataView(new ArrayBuffer(16), 4, 8))).toBe(8);
    expect(defaultSizeOf(new SharedArrayBuffer(5))).toBe(5);
  });

  it('sums the binary parts of a sample two levels deep, ignoring everything else', () => {
    const sample = {
      image: new Uint8Array(1024),
      tabular: [new Float32Array(4), new Float32Array(4)],
      meta: { mask: new Uint8Array(10), deeper: { ignored: new Uint8Array(999) } },
      label: 3,
      name: 'scan-001',
    };
    expect(defaultSizeOf(sample)).toBe(1024 + 32 + 10);
    expect(defaultSizeOf([new Uint16Array(2), 5, null])).toBe(4);
  });

  it('counts 0 for values without binary data', () => {
    for (const v of [undefined, null, 0, 'text', true, {}, [], { a: { b: 1 } }]) {
      expect(defaultSizeOf(v)).toBe(0);
    }
  });

  it('counts own properties only', () => {
    const proto = { inherited: new Uint8Array(100) };
    const obj = Object.create(proto) as Record<string, unknown>;
    obj.own = new Uint8Array(3);
    expect(defaultSizeOf(obj)).toBe(3);
  });
});
