// The collate's buffer rotation is `batchBuffers`; its 0.1 name `poolSize` now only counts Web
// Workers, and is refused here rather than ignored (ignoring it would reuse arrays a caller keeps).
import { createCollate, DataLoader, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('poolSize is refused by the collate options, naming batchBuffers', () => {
  it('createCollate({ poolSize })', () => {
    const make = () => createCollate({ poolSize: 0 } as never);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/poolSize is now batchBuffers.*got poolSize: 0/);
  });

  it('new DataLoader(ds, { poolSize })', () => {
    const make = () => new DataLoader(fromArray([{ x: 1 }]), { poolSize: 3 } as never);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/poolSize is now batchBuffers.*got poolSize: 3/);
  });

  it('batchBuffers: 0 gives each batch fresh arrays', async () => {
    const loader = new DataLoader(fromArray([{ x: 1 }, { x: 2 }]), {
      batchSize: 1,
      batchBuffers: 0,
    });
    const batches = [];
    for await (const b of loader) batches.push(b);
    expect(batches[0]?.x?.data).not.toBe(batches[1]?.x?.data);
    expect(Array.from(batches[0]?.x?.data ?? [])).toEqual([1]);
  });
});
