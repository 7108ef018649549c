import * as core from '@medfusion/core';
import * as web from '@medfusion/web';
import { describe, expect, it } from 'vitest';

describe('@medfusion/web re-exports the public API of @medfusion/core', () => {
  it('offers every value core exports, the same object, except its own createCachedDataset', () => {
    const exported = web as Record<string, unknown>;
    for (const [name, value] of Object.entries(core)) {
      if (name === 'createCachedDataset') continue;
      expect(exported[name], name).toBe(value);
    }
    expect(typeof web.createCachedDataset).toBe('function');
    expect(web.createCachedDataset).not.toBe(core.createCachedDataset);
  });
});
