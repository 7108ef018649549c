// docs/glossary.md against the public API (scripts/check-glossary.mjs): every name
// it lists exists, every field of a public options type is in it, no term twice.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const glossary = readFileSync(join(root, 'docs', 'glossary.md'), 'utf8');

interface Api {
  exports: Map<string, Set<string>>;
  options: Map<string, string[]>;
}
interface GlossaryCheck {
  publicApi(): Api;
  glossaryProblems(text: string, api: Api): string[];
}

let check: GlossaryCheck;
let api: Api;
beforeAll(async () => {
  const script: string = join(root, 'scripts', 'check-glossary.mjs');
  check = (await import(script)) as GlossaryCheck;
  api = check.publicApi();
}, 60_000);

describe('docs/glossary.md', () => {
  it('lists only names that exist and every public option field', () => {
    expect(check.glossaryProblems(glossary, api)).toEqual([]);
  });

  it('reads the API it checks against (entry points, option types)', () => {
    expect(api.exports.get('CachedDataset')).toContain('getCacheStats');
    expect(api.options.get('OpfsStoreOptions')).toContain('flushDelayMs');
  });

  it('fails on a removed name, a missing option field and a term defined twice', () => {
    const drifted = glossary
      .replace('| `PersistentTierDataset`,', '| `PersistentTierDataset`, `withDiskTier`,')
      .replace(/`flushDelayMs`/g, '`flush delay`')
      .replace('| sample codec |', '| codec |');
    const problems = check.glossaryProblems(drifted, api);
    expect(problems.some((p) => p.includes('`withDiskTier` is neither exported'))).toBe(true);
    expect(problems.some((p) => p.includes('option `flushDelayMs` of OpfsStoreOptions'))).toBe(
      true,
    );
    expect(problems.some((p) => p.includes('"codec" is defined twice'))).toBe(true);
  });
});
