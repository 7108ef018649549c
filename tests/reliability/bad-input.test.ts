// Bad input: every row of the table (badInputCases.ts) raises its typed error,
// with a message naming the bad value; the table in docs/reliability.md lists
// the same calls.
import { readFileSync } from 'node:fs';
import { MedFusionError } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { type BadInputCase, coreCases } from './badInputCases.js';
import { report } from './harness.js';

async function outcome(c: BadInputCase): Promise<unknown> {
  try {
    await c.run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('bad input (core)', () => {
  it('the table has at least 30 cases over options, indices, sample types, keys and shapes', () => {
    expect(coreCases.length).toBeGreaterThanOrEqual(30);
    const kinds = new Set(coreCases.map((c) => c.kind));
    for (const k of ['option', 'index', 'sample type', 'key', 'shape']) expect(kinds).toContain(k);
  });

  for (const c of coreCases) {
    it(`${c.call} → ${c.error}`, async ({ task }) => {
      const error = await outcome(c);
      expect(error, 'must throw').toBeInstanceOf(Error);
      const e = error as Error & { code?: unknown };
      expect(e.name).toBe(c.error);
      if (c.error !== 'TypeError' && c.error !== 'RangeError') {
        // a typed error to branch on by `code` (MedFusionErrors, and the codec's own error)
        expect(typeof e.code).toBe('string');
        if (c.error !== 'SampleCodecError') expect(e).toBeInstanceOf(MedFusionError);
      }
      if (c.code !== undefined) expect(e.code).toBe(c.code);
      for (const m of c.mentions) expect(e.message).toContain(m);
      report(task, {
        scenario: 'bad input',
        case: '@medfusion/core (Node)',
        figures: { calls: 1, typedErrors: 1, messageNamesValue: 1 },
      });
    });
  }

  it('docs/reliability.md lists every case', () => {
    const docs = readFileSync(new URL('../../docs/reliability.md', import.meta.url), 'utf8');
    const missing = coreCases.filter((c) => !docs.includes(`\`${c.call}\``)).map((c) => c.call);
    expect(missing).toEqual([]);
  });
});
