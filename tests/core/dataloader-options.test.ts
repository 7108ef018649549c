import { DataLoader, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const ds = fromArray([{ x: 1 }, { x: 2 }]);

describe('DataLoader options', () => {
  it('rejects bad options with TypeError/RangeError naming the option and the value', () => {
    const bad = (opts: object) => () => new DataLoader(ds, opts);
    expect(bad({ batchSize: 0 })).toThrow(
      new RangeError('batchSize must be a positive integer, got 0'),
    );
    expect(bad({ batchSize: '8' })).toThrow(
      new TypeError('batchSize must be a positive integer, got "8"'),
    );
    expect(bad({ shuffle: 1 })).toThrow(new TypeError('shuffle must be a boolean, got 1'));
    expect(bad({ dropLast: 'yes' })).toThrow(/dropLast must be a boolean, got "yes"/);
    expect(bad({ seed: -3 })).toThrow(
      new RangeError('seed must be a non-negative integer, got -3'),
    );
    expect(bad({ seed: 2 ** 60 })).toThrow(/seed must be below 2\^53/);
    expect(bad({ prefetchBatches: 1.5 })).toThrow(
      /prefetchBatches must be a non-negative integer, got 1.5/,
    );
    expect(bad({ collate: 'stack' })).toThrow(/collate must be a function, got "stack"/);
    expect(bad({ collate: () => 0, toFloat32: {} })).toThrow(TypeError);
    expect(bad({ collate: () => 0, labelFields: ['y'] })).toThrow(
      /labelFields configures the default collate/,
    );
    expect(bad({ batchBuffers: -1 })).toThrow(
      /batchBuffers must be a non-negative integer, got -1/,
    );
    expect(bad({ toFloat32: { scale: Number.NaN } })).toThrow(
      /toFloat32.scale must be a finite positive number, got NaN/,
    );
    expect(() => new DataLoader({} as never)).toThrow(/dataset must be a Dataset/);
  });

  it('uses the documented defaults', () => {
    const loader = new DataLoader(fromArray(new Array(100).fill({ x: 0 })));
    expect([
      loader.batchSize,
      loader.shuffle,
      loader.seed,
      loader.dropLast,
      loader.prefetchBatches,
    ]).toEqual([32, false, 0, false, 2]);
    expect(loader.length).toBe(4);
    expect(loader.state()).toEqual({ seed: 0, epoch: 0, cursor: 0 });
  });
});
